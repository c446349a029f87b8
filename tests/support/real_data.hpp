#pragma once
// Random real inputs in [-1, 1] and the element-wise check of a real result against a long-double
// reference, shared by the convolution and FIR tests.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace lookback::test {

using real_types = ::testing::Types<float, double>;

template <class T>
std::vector<T> random_reals(std::size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(dist(rng));
  return v;
}

/// Every element within `tolerance` of the reference; the first one that is not is reported.
template <class T>
void expect_within(const std::vector<long double>& expected, const std::vector<T>& got, long double tolerance,
                   const std::string& what) {
  ASSERT_EQ(got.size(), expected.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(static_cast<long double>(got[i]) - expected[i]) <= tolerance)) {
      ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", reference " << static_cast<double>(expected[i])
                    << " (tolerance " << static_cast<double>(tolerance) << ")";
      return;
    }
}

}  // namespace lookback::test
