#include "support/run_seed.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>

namespace lookback::test {
namespace {

/// Prints the seed again under each failed test, where a long log's reader looks, rather than only
/// where the first test drew it.
class seed_on_failure : public ::testing::EmptyTestEventListener {
  void OnTestEnd(const ::testing::TestInfo& info) override {
    if (info.result() == nullptr || !info.result()->Failed()) return;
    const std::uint64_t seed = run_seed();  // drawn (and announced) first, should no case have drawn it
    std::cout << "[ lookback ] " << info.test_suite_name() << "." << info.name()
              << " failed; replay with LOOKBACK_TEST_SEED=" << seed << "\n";
  }
};

// Registered before main (the binaries use gtest_main, or a main of their own): the listener list is
// the one UnitTest's, whichever main runs the tests.
const bool registered = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new seed_on_failure);
  return true;
}();

}  // namespace

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
