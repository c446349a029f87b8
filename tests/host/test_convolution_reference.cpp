// The boundary policies' index maps and the CPU convolution references, by hand.
#include <lookback/primitives/convolution/boundary.cuh>
#include <lookback/primitives/cpu/convolution.hpp>
#include <lookback/primitives/ladder/tiling_reduction.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace lookback {
namespace {

std::vector<long long> mapped(std::int64_t from, std::int64_t to, std::int64_t n, boundary b) {
  std::vector<long long> out;
  for (std::int64_t i = from; i <= to; ++i) out.push_back(convolution::source_index(i, n, b));
  return out;
}

TEST(ConvolutionBoundary, ZeroClampAndMirrorMapIndices) {
  // n = 4: a b c d
  EXPECT_EQ(mapped(-3, 6, 4, boundary::zero), (std::vector<long long>{-1, -1, -1, 0, 1, 2, 3, -1, -1, -1}));
  EXPECT_EQ(mapped(-3, 6, 4, boundary::clamp), (std::vector<long long>{0, 0, 0, 0, 1, 2, 3, 3, 3, 3}));
  // d c b | a b c d | c b a: the edge element is not repeated.
  EXPECT_EQ(mapped(-3, 6, 4, boundary::mirror), (std::vector<long long>{3, 2, 1, 0, 1, 2, 3, 2, 1, 0}));
  // Far past the ends the reflection keeps folding.
  EXPECT_EQ(mapped(-7, -4, 4, boundary::mirror), (std::vector<long long>{1, 0, 1, 2}));
  EXPECT_EQ(mapped(-2, 2, 1, boundary::mirror), (std::vector<long long>{0, 0, 0, 0, 0}));
}

TEST(ConvolutionBoundary, NamesParse) {
  EXPECT_EQ(parse_boundary("zero"), boundary::zero);
  EXPECT_EQ(parse_boundary("clamp"), boundary::clamp);
  EXPECT_EQ(parse_boundary("mirror"), boundary::mirror);
  EXPECT_FALSE(parse_boundary("reflect").has_value());
}

TEST(ConvolutionReference, OneDimensionalByHand) {
  const std::vector<double> x{1, 2, 3, 4};
  const std::vector<double> m{1, 10, 100};
  // y[i] = x[i-1] + 10 x[i] + 100 x[i+1]
  EXPECT_EQ(cpu::correlate1d(x, m, 1, boundary::zero), (std::vector<long double>{210, 321, 432, 43}));
  EXPECT_EQ(cpu::correlate1d(x, m, 1, boundary::clamp), (std::vector<long double>{211, 321, 432, 443}));
  EXPECT_EQ(cpu::correlate1d(x, m, 1, boundary::mirror), (std::vector<long double>{212, 321, 432, 343}));
}

TEST(ConvolutionReference, TwoDimensionalByHand) {
  // 2 x 3 image, 3 x 3 mask of ones: each output sums its in-range neighbourhood (zero boundary).
  const std::vector<double> x{1, 2, 3, 4, 5, 6};
  const std::vector<double> ones(9, 1.0);
  EXPECT_EQ(cpu::correlate2d(x, 2, 3, ones, 3, 3, boundary::zero),
            (std::vector<long double>{12, 21, 16, 12, 21, 16}));
}

TEST(ConvolutionReference, TilingReductionIsTheTextbooksFormula) {
  // The lecture's tables: a 1D tile of 256 with a 9-tap mask saves 8.7x; 2D 16 x 16 with 5 x 5, 16x.
  EXPECT_NEAR(ladder::tiling_reduction_1d(256, 9), 256.0 * 9 / 264, 1e-12);
  EXPECT_DOUBLE_EQ(ladder::tiling_reduction_2d(16, 5), 16.0);
  EXPECT_DOUBLE_EQ(ladder::tiling_reduction_1d(1, 1), 1.0);
}

}  // namespace
}  // namespace lookback
