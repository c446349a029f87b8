#include "support/gpu_test.hpp"

#include "typed/visit.hpp"

#include <cstdlib>
#include <iostream>
#include <limits>
#include <type_traits>

namespace lookback::test {

std::uint64_t run_seed() {
  static const std::uint64_t seed = [] {
    std::uint64_t s = 0;
    if (const char* env = std::getenv("LOOKBACK_TEST_SEED"))
      s = std::strtoull(env, nullptr, 10);
    else
      s = (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
    std::cout << "[ lookback ] random seed " << s << " (replay with LOOKBACK_TEST_SEED=" << s << ")\n";
    return s;
  }();
  return seed;
}

std::mt19937_64 make_rng(std::uint64_t salt) {
  std::seed_seq seq{run_seed(), salt};
  return std::mt19937_64(seq);
}

io::host_array random_array(io::dtype type, std::int64_t n, distribution d, std::mt19937_64& rng) {
  io::host_array a{type, {n}, std::vector<std::byte>(static_cast<std::size_t>(n) * io::dtype_size(type))};
  typed::visit_numeric(type, [&](auto zero) {
    using T = decltype(zero);
    T* out = a.as<T>();
    if constexpr (std::is_floating_point_v<T>) {
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
