#pragma once
// How a globally ordered array of n items is dealt to p ranks when balanced: rank r holds items
// [share_begin(n, p, r), share_begin(n, p, r + 1)), the first n % p ranks one item more than the rest.
#include <algorithm>
#include <cstdint>

namespace lookback::dist {

[[nodiscard]] inline std::int64_t share_begin(std::int64_t n, int p, int r) {
  return (n / p) * r + std::min<std::int64_t>(r, n % p);
}

[[nodiscard]] inline std::int64_t share_size(std::int64_t n, int p, int r) {
  return share_begin(n, p, r + 1) - share_begin(n, p, r);
}

}  // namespace lookback::dist
