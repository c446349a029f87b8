#include "support/run_seed.hpp"

#include <cstdlib>
#include <iostream>

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

}  // namespace lookback::test
