// The deterministic scan's association on the CPU (cpu/deterministic_scan.hpp), the reference the GPU's
// bits are checked against: an exact operator gives the sequential scan whatever the association, a
// non-commutative one proves that nothing is swapped, and float sums whose rounding depends on the
// association give the promised grouping (runs of 17 folded left, Kogge-Stone across runs, granules
// of 2176 folded in order within windows of 32 granules, the windows folded in order).
#include <gtest/gtest.h>

#include <lookback/primitives/cpu/deterministic_scan.hpp>
#include <lookback/primitives/cpu/scan.hpp>

#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>
#include "support/run_seed.hpp"

namespace {

using lookback::cpu::deterministic_scan;
constexpr int run_items = 17;
constexpr std::size_t granule = 2176;
static_assert(run_items == lookback::cpu::deterministic_run_items && granule == lookback::cpu::deterministic_granule_items,
              "the promise these tests spell out");

struct plus {
  template <class T>
  T operator()(const T& a, const T& b) const { return a + b; }
};

// x -> a*x + b modulo 2^32: exact, associative, not commutative.
struct affine {
  std::uint32_t a, b;
  bool operator==(const affine& o) const { return a == o.a && b == o.b; }
};
struct compose {
  affine operator()(const affine& f, const affine& g) const { return {g.a * f.a, g.a * f.b + g.b}; }
};

TEST(DeterministicReference, AnExactNonCommutativeOperatorGivesTheSequentialScan) {
  auto rng = lookback::test::make_rng(5);
  for (const std::int64_t n : {0, 1, 16, 17, 18, 543, 544, 545, 2175, 2176, 2177, 10007}) {
    std::vector<affine> in(static_cast<std::size_t>(n));
    for (auto& f : in) f = {static_cast<std::uint32_t>(rng() | 1u), static_cast<std::uint32_t>(rng())};
    const affine start{3, 7};
    std::vector<affine> expected(in.size()), got(in.size());
    affine acc = start;
    for (std::size_t i = 0; i < in.size(); ++i) {
      expected[i] = acc;
      acc = compose{}(acc, in[i]);
    }
    const auto total = deterministic_scan(in.data(), got.data(), n, compose{}, std::optional<affine>(start), true);
    EXPECT_EQ(got, expected) << "n=" << n;
    ASSERT_TRUE(total.has_value());
    EXPECT_TRUE(*total == acc) << "n=" << n;
  }
}

/// A whole granule's aggregate in the promised grouping: 4 warps of Kogge-Stone over runs of 17.
float granule_aggregate(const std::vector<float>& v, std::size_t first) {
  float w[4];
  for (int q = 0; q < 4; ++q) {
    std::vector<float> t(32);
    for (int l = 0; l < 32; ++l) {
      const std::size_t r = first + run_items * (32 * q + l);
      t[l] = v[r];
      for (int k = 1; k < run_items; ++k) t[l] += v[r + k];
    }
    for (int offset = 1; offset < 32; offset <<= 1)
      for (int l = 31; l >= offset; --l) t[l] = t[l - offset] + t[l];
    w[q] = t[31];
  }
  return ((w[0] + w[1]) + w[2]) + w[3];
}

TEST(DeterministicReference, FloatSumsGroupAsPromised) {
  // Runs of 17 sum left to right; lane 4's first item follows Kogge-Stone's ((t0 + t1) + (t2 + t3)).
  std::vector<float> in(granule + 40);
  auto rng = lookback::test::make_rng(11);
  std::uniform_real_distribution<float> any(-1.0f, 1.0f);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = any(rng) * (i % 7 == 0 ? 1e7f : 1.0f);
  std::vector<float> out(in.size());
  const auto total = deterministic_scan(in.data(), out.data(), static_cast<std::int64_t>(in.size()), plus{},
                                        std::optional<float>(), false);
  const auto run = [&](int r) {
    float t = in[run_items * r];
    for (int k = 1; k < run_items; ++k) t += in[run_items * r + k];
    return t;
  };
  EXPECT_EQ(out[16], run(0));
  EXPECT_EQ(out[17 + 3], (((run(0) + in[17]) + in[18]) + in[19]) + in[20]);
  EXPECT_EQ(out[68], ((run(0) + run(1)) + (run(2) + run(3))) + in[68]);
  // The second granule starts from the first granule's aggregate: its 4 warp totals folded in order.
  EXPECT_EQ(out[granule], granule_aggregate(in, 0) + in[granule]);
  // The total of two whole granules: the start, then their window's aggregate.
  std::vector<float> two(2 * granule);
  for (std::size_t i = 0; i < two.size(); ++i) two[i] = in[i % in.size()] * (i >= granule ? -0.5f : 1.0f);
  const auto both = deterministic_scan<float>(two.data(), nullptr, static_cast<std::int64_t>(2 * granule), plus{}, 0.5f, true);
  EXPECT_EQ(*both, 0.5f + (granule_aggregate(two, 0) + granule_aggregate(two, granule)));
  EXPECT_TRUE(total.has_value());
}

TEST(DeterministicReference, WindowsOf32GranulesFoldTheirGranulesBeforeThePrefix) {
  constexpr std::size_t window = 32 * granule;
  std::vector<float> in(2 * window + granule + 3);
  auto rng = lookback::test::make_rng(13);
  std::uniform_real_distribution<float> any(-1.0f, 1.0f);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = any(rng) * (i % 5 == 0 ? 1e6f : 1.0f);
  std::vector<float> out(in.size());
  const float start = 0.75f;
  const auto total =
      deterministic_scan(in.data(), out.data(), static_cast<std::int64_t>(in.size()), plus{}, std::optional<float>(start), true);
  const auto local = [&](std::size_t window_first, std::size_t granules) {  // left fold of whole granules
    float acc = granule_aggregate(in, window_first);
    for (std::size_t g = 1; g < granules; ++g) acc += granule_aggregate(in, window_first + g * granule);
    return acc;
  };
  EXPECT_EQ(out[granule], start + granule_aggregate(in, 0));
  EXPECT_EQ(out[3 * granule], start + local(0, 3));
  const float prefix1 = start + local(0, 32);
  EXPECT_EQ(out[window], prefix1);
  EXPECT_EQ(out[window + 2 * granule], prefix1 + local(window, 2));
  const float prefix2 = prefix1 + local(window, 32);
  EXPECT_EQ(out[2 * window], prefix2);
  float last = in[2 * window + granule];  // the last granule: one run of 3 items
  last += in[2 * window + granule + 1];
  last += in[2 * window + granule + 2];
  ASSERT_TRUE(total.has_value());
  EXPECT_EQ(*total, prefix2 + (granule_aggregate(in, 2 * window) + last));
}

TEST(DeterministicReference, WithoutAStartTheFirstItemIsItselfAndEmptyHasNoTotal) {
  const std::vector<float> in{-0.0f};
  std::vector<float> out(1, 1.0f);
  const auto total = deterministic_scan(in.data(), out.data(), 1, plus{}, std::optional<float>(), false);
  EXPECT_TRUE(std::signbit(out[0]));  // never 0.0 + -0.0
  EXPECT_TRUE(total && std::signbit(*total));
  EXPECT_FALSE(deterministic_scan<float>(nullptr, nullptr, 0, plus{}, std::nullopt, false).has_value());
}

}  // namespace
