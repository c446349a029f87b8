#pragma once
// Problem sizes the GPU tests sweep, capped by LOOKBACK_TEST_MAX_N (the sanitizer run sets it low).
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace lookback::test {

inline std::int64_t max_test_size() {
  const char* env = std::getenv("LOOKBACK_TEST_MAX_N");
  return env != nullptr ? std::strtoll(env, nullptr, 10) : (std::int64_t{1} << 30);
}

/// 0, around a warp, around one and two tiles, a prime, 2^20+7, 2^24; those above the cap dropped.
inline std::vector<std::int64_t> sizes_around(std::int64_t tile) {
  std::vector<std::int64_t> sizes;
  for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{31}, std::int64_t{32}, std::int64_t{33},
                         std::int64_t{1000}, tile - 1, tile, tile + 1, 2 * tile + 1, std::int64_t{999983},
                         (std::int64_t{1} << 20) + 7, std::int64_t{1} << 24})
    if (n <= max_test_size()) sizes.push_back(n);
  return sizes;
}

}  // namespace lookback::test
