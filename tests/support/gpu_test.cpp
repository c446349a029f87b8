#include "support/gpu_test.hpp"

#include "typed/visit.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace lookback::test {

io::host_array random_array(io::dtype type, std::int64_t n, distribution d, std::mt19937_64& rng) {
  io::host_array a{type, {n}, std::vector<std::byte>(static_cast<std::size_t>(n) * io::dtype_size(type))};
  typed::visit_numeric(type, [&](auto zero) {
    using T = decltype(zero);
    T* out = a.as<T>();
    if (d == distribution::whole || d == distribution::negative_zeros) {
      std::uniform_int_distribution<int> dist(std::is_signed_v<T> ? -8 : 0, 8);
      for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(dist(rng));
      if constexpr (std::is_floating_point_v<T>)
        if (d == distribution::negative_zeros)
          for (std::int64_t i = 0; i < n; ++i)
            if (i < std::max<std::int64_t>(40, n / 2) || i % 7 == 0) out[i] = -T(0);
    } else if constexpr (std::is_floating_point_v<T>) {
      std::uniform_real_distribution<T> dist(d == distribution::signed_ ? T(-1) : T(0), T(1));
      const T c = dist(rng);
      for (std::int64_t i = 0; i < n; ++i) out[i] = d == distribution::constant ? c : dist(rng);
    } else {
      const T lo = d == distribution::signed_ ? std::numeric_limits<T>::lowest() : std::is_signed_v<T> ? T(-1000) : T(0);
      const T hi = d == distribution::signed_ ? std::numeric_limits<T>::max() : T(1000);
      std::uniform_int_distribution<T> dist(lo, hi);
      const T c = dist(rng);
      for (std::int64_t i = 0; i < n; ++i) out[i] = d == distribution::constant ? c : dist(rng);
    }
  });
  return a;
}

}  // namespace lookback::test
