// The image commands' host side: --kernel specs and the masks they make, the CPU summed-area table
// against brute force, and the box filter from the table against conv2d's box mask with zero borders.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <lookback/algorithms/cpu/summed_area_table.hpp>

#include "typed/image_masks.hpp"
#include "typed/image_ops.hpp"
#include "support/run_seed.hpp"

namespace {

using lookback::typed::image_mask;
using lookback::typed::parse_kernel_spec;

image_mask mask_of(const std::string& spec) {
  image_mask m;
  const auto problem = parse_kernel_spec(spec, m);
  EXPECT_FALSE(problem) << spec << ": " << problem.value_or("");
  return m;
}

TEST(KernelSpec, BoxIsUniformAndSumsToOne) {
  for (const int k : {1, 3, 5, 9}) {
    const image_mask m = mask_of("box:" + std::to_string(k));
    EXPECT_EQ(m.height, k);
    EXPECT_EQ(m.width, k);
    ASSERT_EQ(m.taps.size(), static_cast<std::size_t>(k * k));
    for (const double t : m.taps) EXPECT_EQ(t, 1.0 / (k * k));
    EXPECT_NEAR(std::accumulate(m.taps.begin(), m.taps.end(), 0.0), 1.0, 1e-13);
  }
}

TEST(KernelSpec, GaussianIsNormalisedSymmetricAndPeaksInTheMiddle) {
  const image_mask m = mask_of("gaussian:7:1.5");
  ASSERT_EQ(m.height, 7);
  ASSERT_EQ(m.width, 7);
  EXPECT_NEAR(std::accumulate(m.taps.begin(), m.taps.end(), 0.0), 1.0, 1e-13);
  const auto at = [&](int i, int j) { return m.taps[static_cast<std::size_t>(i * 7 + j)]; };
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 7; ++j) {
      EXPECT_DOUBLE_EQ(at(i, j), at(6 - i, j));
      EXPECT_DOUBLE_EQ(at(i, j), at(i, 6 - j));
      EXPECT_DOUBLE_EQ(at(i, j), at(j, i));
      EXPECT_LE(at(i, j), at(3, 3));
    }
  // exp(-(d^2) / (2 sigma^2)) relative to the centre.
  EXPECT_NEAR(at(3, 4) / at(3, 3), std::exp(-1.0 / (2 * 1.5 * 1.5)), 1e-15);
  EXPECT_NEAR(at(0, 0) / at(3, 3), std::exp(-18.0 / (2 * 1.5 * 1.5)), 1e-15);
  // A tiny sigma leaves the centre tap alone.
  const image_mask sharp = mask_of("gaussian:3:0.01");
  EXPECT_EQ(sharp.taps[4], 1.0);
  // So does one whose square underflows (2 * SIGMA^2 had become 0, and 0/0 every tap NaN).
  const image_mask tiniest = mask_of("gaussian:3:1e-200");
  EXPECT_EQ(tiniest.taps, (std::vector<double>{0, 0, 0, 0, 1, 0, 0, 0, 0}));
}

TEST(KernelSpec, NamedMasksHaveTheirExactValues) {
  EXPECT_EQ(mask_of("sharpen").taps, (std::vector<double>{0, -1, 0, -1, 5, -1, 0, -1, 0}));
  EXPECT_EQ(mask_of("sobel-x").taps, (std::vector<double>{-1, 0, 1, -2, 0, 2, -1, 0, 1}));
  EXPECT_EQ(mask_of("sobel-y").taps, (std::vector<double>{-1, -2, -1, 0, 0, 0, 1, 2, 1}));
}

TEST(KernelSpec, MalformedSpecsSayWhy) {
  const std::pair<const char*, const char*> cases[] = {
      {"blur", "--kernel must be box:K | gaussian:K:SIGMA | sharpen | sobel-x | sobel-y, not 'blur'"},
      {"", "--kernel must be box:K"},
      {"box", "--kernel box needs its size: box:K"},
      {"box:", "--kernel box:: K must be a whole number, not ''"},
      {"box:x", "K must be a whole number, not 'x'"},
      {"box:3x", "K must be a whole number, not '3x'"},
      {"box:+3", "K must be a whole number, not '+3'"},
      {"box:0", "--kernel box:0: K must be at least 1, not 0"},
      {"box:-3", "--kernel box:-3: K must be at least 1, not -3"},
      {"box:4", "--kernel box:4: K must be odd (the mask is centred on its middle tap), not 4"},
      {"box:1025", "K must be at most 1023, not 1025"},
      {"box:99999999999", "K must be a whole number"},
      {"gaussian:5", "--kernel gaussian:5: a gaussian needs its size and width: gaussian:K:SIGMA"},
      {"gaussian", "a gaussian needs its size and width"},
      {"gaussian:4:1", "K must be odd"},
      {"gaussian:5:0", "--kernel gaussian:5:0: SIGMA must be greater than 0, not 0"},
      {"gaussian:5:-1", "SIGMA must be greater than 0, not -1"},
      {"gaussian:5:nan", "SIGMA must be a number, not 'nan'"},
      {"gaussian:5:inf", "SIGMA must be a number, not 'inf'"},
      {"gaussian:5:", "SIGMA must be a number, not ''"},
      {"gaussian:5:1:2", "SIGMA must be a number, not '1:2'"},
      {"sobel-z", "not 'sobel-z'"},
      {"SHARPEN", "not 'SHARPEN'"},
  };
  for (const auto& [spec, message] : cases) {
    image_mask m{1, 1, {42}};
    const auto problem = parse_kernel_spec(spec, m);
    ASSERT_TRUE(problem) << spec;
    EXPECT_NE(problem->find(message), std::string::npos) << spec << ": " << *problem;
    EXPECT_EQ(m.taps, std::vector<double>{42}) << "a refused spec must leave the mask alone";
  }
}

// --- summed-area tables and the box filter ----------------------------------------------------

template <class T>
std::vector<T> random_image(int height, int width, std::uint32_t seed, double lo, double hi) {
  auto rng = lookback::test::make_rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<T> x(static_cast<std::size_t>(height) * width);
  for (T& v : x) v = static_cast<T>(std::is_integral_v<T> ? std::floor(dist(rng)) : dist(rng));
  return x;
}

TEST(SummedAreaTableReference, MatchesBruteForce) {
  for (const auto& [h, w] : std::vector<std::pair<int, int>>{{1, 1}, {1, 7}, {7, 1}, {13, 17}, {32, 33}}) {
    const std::vector<std::uint32_t> x = random_image<std::uint32_t>(h, w, 7u + h * w, 0, 1000);
    const std::vector<std::uint64_t> table = lookback::cpu::summed_area_table<std::uint64_t>(x.data(), h, w);
    const std::vector<double> xd(x.begin(), x.end());
    const std::vector<double> table_d = lookback::cpu::summed_area_table<double>(xd.data(), h, w);
    for (int r = 0; r < h; ++r)
      for (int c = 0; c < w; ++c) {
        std::uint64_t sum = 0;
        for (int i = 0; i <= r; ++i)
          for (int j = 0; j <= c; ++j) sum += x[static_cast<std::size_t>(i) * w + j];
        ASSERT_EQ(table[static_cast<std::size_t>(r) * w + c], sum) << h << "x" << w << " at " << r << ", " << c;
        ASSERT_EQ(table_d[static_cast<std::size_t>(r) * w + c], static_cast<double>(sum));
      }
  }
}

TEST(SummedAreaTableReference, Uint32TablesWrapLikeTheGpu) {
  const std::vector<std::uint32_t> x{4000000000u, 500000000u};
  const std::vector<std::uint32_t> table = lookback::cpu::summed_area_table<std::uint32_t>(x.data(), 1, 2);
  EXPECT_EQ(table[1], static_cast<std::uint32_t>(4500000000ull));
}

/// The box filter through the typed CPU path (table, then box means) for a plane already converted to `acc`.
template <class Out>
std::vector<Out> box_filter(lookback::io::dtype acc, const void* plane, int h, int w, int radius) {
  std::vector<std::byte> table(static_cast<std::size_t>(h) * w * lookback::io::dtype_size(acc));
  lookback::typed::summed_area_table_cpu(acc, acc, plane, table.data(), h, w);
  std::vector<Out> out(static_cast<std::size_t>(h) * w);
  lookback::typed::box_mean_cpu(acc, lookback::io::dtype_of<Out>(), table.data(), out.data(), h, w, radius);
  return out;
}

template <class T>
std::vector<T> conv2d_box(const std::vector<T>& x, int h, int w, int radius) {
  const image_mask m = mask_of("box:" + std::to_string(2 * radius + 1));
  const std::vector<T> taps(m.taps.begin(), m.taps.end());
  std::vector<T> out(x.size());
  lookback::typed::convolve2d_cpu(lookback::io::dtype_of<T>(), x.data(), out.data(), h, w,
                                  {taps.data(), m.height, m.width}, lookback::boundary::zero);
  return out;
}

TEST(BoxFilter, EqualsConv2dBoxWithZeroBorders) {
  for (const auto& [h, w] : std::vector<std::pair<int, int>>{{1, 1}, {5, 9}, {17, 12}, {40, 40}})
    for (const int radius : {0, 1, 2, 5, 50}) {
      SCOPED_TRACE(std::to_string(h) + "x" + std::to_string(w) + " radius " + std::to_string(radius));
      const std::vector<double> x = random_image<double>(h, w, 11u + h + radius, -100, 100);
      const std::vector<double> by_table = box_filter<double>(lookback::io::dtype::float64, x.data(), h, w, radius);
      const std::vector<double> by_mask = conv2d_box(x, h, w, radius);
      for (std::size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(by_table[i], by_mask[i], 1e-11) << "pixel " << i;

      // 8-bit pixels: the table is exact (uint64), and the means round to the same integers.
      const std::vector<std::uint64_t> pixels = random_image<std::uint64_t>(h, w, 3u + h * radius, 0, 256);
      const std::vector<float> from_table = box_filter<float>(lookback::io::dtype::uint64, pixels.data(), h, w, radius);
      const std::vector<float> from_mask = conv2d_box(std::vector<float>(pixels.begin(), pixels.end()), h, w, radius);
      for (std::size_t i = 0; i < pixels.size(); ++i) {
        ASSERT_NEAR(from_table[i], from_mask[i], 1e-4f) << "pixel " << i;
        ASSERT_EQ(std::nearbyint(from_table[i]), std::nearbyint(from_mask[i])) << "pixel " << i;
      }
    }
}

TEST(BoxFilter, KnownValues) {
  // 3 x 3 of ones, radius 1: corners see 4 of 9 pixels, edges 6, the centre 9.
  const std::vector<double> ones(9, 1.0);
  const std::vector<double> mean = box_filter<double>(lookback::io::dtype::float64, ones.data(), 3, 3, 1);
  EXPECT_EQ(mean, (std::vector<double>{4 / 9.0, 6 / 9.0, 4 / 9.0, 6 / 9.0, 1.0, 6 / 9.0, 4 / 9.0, 6 / 9.0, 4 / 9.0}));
}

}  // namespace
