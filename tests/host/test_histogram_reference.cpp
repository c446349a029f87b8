// Tests of the histogram bin maps and the CPU reference histogram built on them. The GPU tests and
// `lookback histogram --verify` trust these maps, so the expected bins here come from hand-worked
// values or exact integer arithmetic, never from the maps themselves.
#include <gtest/gtest.h>

#include <lookback/algorithms/cpu/histogram.hpp>
#include <lookback/algorithms/histogram/bin_mapping.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/dtype.hpp"
#include "typed/histogram_ops.hpp"
#include "support/run_seed.hpp"

namespace {

using lookback::io::dtype;
using lookback::typed::histogram_spec;
namespace hist = lookback::histogram;

template <class Sample>
using level = hist::level_t<Sample>;

// floor((x - lower) * bins / (upper - lower)) in exact 128-bit arithmetic, or -1 outside [lower, upper).
int exact_bin(std::int64_t x, std::int64_t lower, std::int64_t upper, int bins) {
  if (x < lower || x >= upper) return -1;
  const auto offset = static_cast<unsigned __int128>(static_cast<__int128>(x) - lower);
  const auto range = static_cast<unsigned __int128>(static_cast<__int128>(upper) - lower);
  return static_cast<int>(offset * static_cast<unsigned>(bins) / range);
}

// Checks every x in [first, last] (inclusive, within Sample's values) against the exact bin.
template <class Sample>
void expect_exact_bins_for_all(std::int64_t lower, std::int64_t upper, int bins, std::int64_t first, std::int64_t last) {
  const auto map = hist::even_bins<Sample>::make(bins, lower, upper);
  for (std::int64_t x = first; x <= last; ++x)
    ASSERT_EQ(map(static_cast<Sample>(x)), exact_bin(x, lower, upper, bins))
        << "x=" << x << " over [" << lower << ", " << upper << ") in " << bins << " bins";
}

template <class Sample>
constexpr std::int64_t lowest() {
  return static_cast<std::int64_t>(std::numeric_limits<Sample>::lowest());
}
template <class Sample>
constexpr std::int64_t highest() {
  return static_cast<std::int64_t>(std::numeric_limits<Sample>::max());
}

// --- even bins, integer samples -------------------------------------------------------------

TEST(HistogramEvenBinsIntegers, Uint8FullRangeIsTheIdentity) {
  const auto map = hist::even_bins<std::uint8_t>::make(256, 0, 256);
  for (int x = 0; x < 256; ++x) EXPECT_EQ(map(static_cast<std::uint8_t>(x)), x);
}

TEST(HistogramEvenBinsIntegers, Int32NegativeLowerInFourBins) {
  // [-10, 10) in 4 bins of width 5.
  const auto map = hist::even_bins<std::int32_t>::make(4, -10, 10);
  const std::pair<std::int32_t, int> cases[] = {
      {-11, -1}, {-10, 0}, {-6, 0}, {-5, 1}, {-1, 1}, {0, 2}, {4, 2}, {5, 3}, {9, 3}, {10, -1}, {11, -1},
      {std::numeric_limits<std::int32_t>::min(), -1}, {std::numeric_limits<std::int32_t>::max(), -1}};
  for (const auto& [x, bin] : cases) EXPECT_EQ(map(x), bin) << "x=" << x;
}

TEST(HistogramEvenBinsIntegers, RangeNotDivisibleByBins) {
  // 997 is prime, so no bin boundary falls on a whole multiple: every x from 0 to past the upper
  // level (where the type holds it) against floor((x - 3) * 7 / 997).
  expect_exact_bins_for_all<std::uint8_t>(3, 1000, 7, 0, 255);
  expect_exact_bins_for_all<std::uint16_t>(3, 1000, 7, 0, 1100);
  expect_exact_bins_for_all<std::int32_t>(3, 1000, 7, -100, 1100);
  expect_exact_bins_for_all<std::uint32_t>(3, 1000, 7, 0, 1100);
  expect_exact_bins_for_all<std::int32_t>(-1000, 997, 65536, -1100, 1100);  // more bins than values
}

TEST(HistogramEvenBinsIntegers, Uint32WholeRangeInto65536BinsIsTheHigh16Bits) {
  const auto map = hist::even_bins<std::uint32_t>::make(65536, 0, std::int64_t{1} << 32);
  std::vector<std::uint32_t> xs{0, 1, 65535, 65536, 65537, 0x7fffffff, 0x80000000, 0xffffffff};
  for (std::uint32_t k = 1; k < 65536; k += 997) {
    xs.push_back(k << 16);
    xs.push_back((k << 16) - 1);
  }
  auto rng = lookback::test::make_rng(2024);
  for (int i = 0; i < 200000; ++i) xs.push_back(static_cast<std::uint32_t>(rng()));
  for (const std::uint32_t x : xs) ASSERT_EQ(map(x), static_cast<int>(x >> 16)) << "x=" << x;
}

TEST(HistogramEvenBinsIntegers, Int32WholeRangeInto65536Bins) {
  const auto map = hist::even_bins<std::int32_t>::make(65536, lowest<std::int32_t>(), std::int64_t{1} << 31);
  auto rng = lookback::test::make_rng(7);
  for (int i = 0; i < 200000; ++i) {
    const auto x = static_cast<std::int32_t>(static_cast<std::uint32_t>(rng()));
    ASSERT_EQ(map(x), static_cast<int>((static_cast<std::int64_t>(x) + (std::int64_t{1} << 31)) >> 16)) << "x=" << x;
  }
  EXPECT_EQ(map(std::numeric_limits<std::int32_t>::min()), 0);
  EXPECT_EQ(map(std::numeric_limits<std::int32_t>::max()), 65535);
}

// The integer map estimates the bin in float and corrects it with exact products: random ranges,
// bin counts and samples (including each bin's first and last value) against 128-bit arithmetic.
template <class Sample>
void expect_exact_bins_for_random_ranges(std::uint64_t seed) {
  auto rng = lookback::test::make_rng(seed);
  const std::int64_t lo = lowest<Sample>(), hi = highest<Sample>();
  std::uniform_int_distribution<std::int64_t> value(lo, hi);
  std::uniform_int_distribution<int> bins_of(1, hist::max_bins);
  for (int trial = 0; trial < 300; ++trial) {
    std::int64_t lower = value(rng), upper = value(rng) + 1;  // upper may be one past the type's largest
    if (lower > upper) std::swap(lower, upper);
    if (lower == upper) continue;
    const int bins = trial % 3 == 0 ? static_cast<int>(rng() % 8) + 1 : bins_of(rng);
    const auto map = hist::even_bins<Sample>::make(bins, lower, upper);
    std::vector<std::int64_t> xs{lower, upper - 1, upper, lower - 1};
    for (int i = 0; i < 200; ++i) {
      const std::int64_t x = std::uniform_int_distribution<std::int64_t>(lower, upper - 1)(rng);
      xs.push_back(x);
      const int b = exact_bin(x, lower, upper, bins);
      // The first value of bin b and the last value of bin b - 1.
      const auto range = static_cast<unsigned __int128>(upper - lower);
      const auto first = lower + static_cast<std::int64_t>((static_cast<unsigned __int128>(b) * range + bins - 1) / bins);
      xs.push_back(first);
      xs.push_back(first - 1);
    }
    for (const std::int64_t x : xs) {
      if (x < lo || x > hi) continue;
      ASSERT_EQ(map(static_cast<Sample>(x)), exact_bin(x, lower, upper, bins))
          << "x=" << x << " over [" << lower << ", " << upper << ") in " << bins << " bins";
    }
  }
}

TEST(HistogramEvenBinsIntegers, RandomRangesMatchExactArithmetic) {
  expect_exact_bins_for_random_ranges<std::uint8_t>(1);
  expect_exact_bins_for_random_ranges<std::uint16_t>(2);
  expect_exact_bins_for_random_ranges<std::int32_t>(3);
  expect_exact_bins_for_random_ranges<std::uint32_t>(4);
}

// The map switches from 32-bit to 64-bit operands when the range reaches 2^32: both sides of the switch,
// each bin's first value and the one before it.
TEST(HistogramEvenBinsIntegers, RangesEitherSideOf32BitOperands) {
  for (const std::int64_t upper : {(std::int64_t{1} << 32) - 1, std::int64_t{1} << 32})
    for (const int bins : {1, 3, 255, 65536}) {
      const auto map = hist::even_bins<std::uint32_t>::make(bins, 0, upper);
      for (int b = 0; b < bins; b += std::max(1, bins / 97)) {
        const auto first = static_cast<std::int64_t>((static_cast<unsigned __int128>(b) * upper + bins - 1) / bins);
        for (const std::int64_t x : {first - 1, first, first + 1})
          if (x >= 0 && x <= highest<std::uint32_t>())
            ASSERT_EQ(map(static_cast<std::uint32_t>(x)), exact_bin(x, 0, upper, bins))
                << "x=" << x << " over [0, " << upper << ") in " << bins << " bins";
      }
    }
}

TEST(HistogramEvenBinsIntegers, LevelsBeyondTheSampleType) {
  // int64 levels reach past the sample type: [-5, 300) for uint8 holds all 256 values.
  expect_exact_bins_for_all<std::uint8_t>(-5, 300, 10, 0, 255);
  // A range near the 64-bit limit for range * bins: the exact products must not overflow.
  const std::int64_t huge = (std::int64_t{1} << 47) - 1;
  expect_exact_bins_for_all<std::int32_t>(-huge, huge, 65535, -1000, 1000);
  const auto map = hist::even_bins<std::int32_t>::make(65535, -huge, huge);
  EXPECT_EQ(map(std::numeric_limits<std::int32_t>::min()), exact_bin(lowest<std::int32_t>(), -huge, huge, 65535));
  EXPECT_EQ(map(std::numeric_limits<std::int32_t>::max()), exact_bin(highest<std::int32_t>(), -huge, huge, 65535));
}

TEST(HistogramEvenBinsIntegers, MakeRejectsBadArguments) {
  using map = hist::even_bins<std::uint32_t>;
  EXPECT_THROW(map::make(0, 0, 10), std::invalid_argument);
  EXPECT_THROW(map::make(-1, 0, 10), std::invalid_argument);
  EXPECT_THROW(map::make(65537, 0, 10), std::invalid_argument);
  EXPECT_THROW(map::make(4, 10, 10), std::invalid_argument);
  EXPECT_THROW(map::make(4, 11, 10), std::invalid_argument);
  // range * bins must fit 64 bits: 2^48 * 65536 = 2^64 does not, 2^48 * 65535 does.
  EXPECT_THROW(map::make(65536, 0, std::int64_t{1} << 48), std::invalid_argument);
  EXPECT_NO_THROW(map::make(65535, 0, std::int64_t{1} << 48));
  EXPECT_NO_THROW(map::make(1, 0, 1));
  EXPECT_NO_THROW(map::make(65536, 0, 1));
}

// --- even bins, floating-point samples ---------------------------------------------------------

template <class T>
class HistogramEvenBinsFloating : public ::testing::Test {};
using floating_types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(HistogramEvenBinsFloating, floating_types);

TYPED_TEST(HistogramEvenBinsFloating, DropsNanInfinitiesAndUpperKeepsLower) {
  using T = TypeParam;
  constexpr T inf = std::numeric_limits<T>::infinity();
  const auto map = hist::even_bins<T>::make(4, T(-1.5), T(2.25));
  EXPECT_EQ(map(std::numeric_limits<T>::quiet_NaN()), -1);
  EXPECT_EQ(map(-std::numeric_limits<T>::quiet_NaN()), -1);
  EXPECT_EQ(map(inf), -1);
  EXPECT_EQ(map(-inf), -1);
  EXPECT_EQ(map(T(2.25)), -1);
  EXPECT_EQ(map(T(100)), -1);
  EXPECT_EQ(map(std::nextafter(T(-1.5), -inf)), -1);
  EXPECT_EQ(map(T(-1.5)), 0);
  EXPECT_EQ(map(T(0)), 1);  // 1.5 * 4 / 3.75 = 1.6
}

// With lower 0 and a power-of-two scale (8 bins over [0, 4): 2 per unit) every step is exact, so the
// bins on either side of an edge are known; otherwise a sample within an ulp or two of an edge may
// land on either side, as in CUB.
TYPED_TEST(HistogramEvenBinsFloating, ExactScaleEdges) {
  using T = TypeParam;
  constexpr T inf = std::numeric_limits<T>::infinity();
  const auto map = hist::even_bins<T>::make(8, T(0), T(4));
  for (int i = 0; i < 8; ++i) {
    const T edge = T(i) / T(2);
    EXPECT_EQ(map(edge), i) << "edge " << edge;
    EXPECT_EQ(map(std::nextafter(edge, inf)), i) << "just above " << edge;
    if (i > 0) EXPECT_EQ(map(std::nextafter(edge, -inf)), i - 1) << "just below " << edge;
  }
  EXPECT_EQ(map(std::nextafter(T(4), -inf)), 7);
  EXPECT_EQ(map(std::nextafter(T(0), -inf)), -1);
}

// The product (x - lower) * (bins / range) can round up to `bins` for x just below upper (for
// [-1.5, 2.25) in one float bin it does); such a sample belongs in the last bin, never past it.
TYPED_TEST(HistogramEvenBinsFloating, JustBelowUpperIsInTheLastBin) {
  using T = TypeParam;
  const std::pair<T, T> ranges[] = {{T(-1.5), T(2.25)}, {T(0), T(1)}, {T(0.1), T(0.7)}, {T(-3), T(1)},
                                    {T(-1e6), T(1)},    {T(1000), T(2000)}, {T(-1), T(0)}};
  for (const auto& [lower, upper] : ranges)
    for (const int bins : {1, 2, 3, 7, 255, 256, 257, 4096, 65535, 65536}) {
      const auto map = hist::even_bins<T>::make(bins, lower, upper);
      T x = upper;
      for (int step = 0; step < 4; ++step) {
        x = std::nextafter(x, lower);
        EXPECT_EQ(map(x), bins - 1) << "x=" << x << " over [" << lower << ", " << upper << ") in " << bins << " bins";
      }
    }
}

// Bins rise with the sample and stay within one of the exact real-number bin.
TYPED_TEST(HistogramEvenBinsFloating, MonotoneAndWithinOneOfTheExactBin) {
  using T = TypeParam;
  auto rng = lookback::test::make_rng(11);
  for (const int bins : {1, 7, 256, 257, 65536})
    for (const auto& [lower, upper] : {std::pair<T, T>{T(-1.5), T(2.25)}, std::pair<T, T>{T(0.1), T(0.7)}}) {
      const auto map = hist::even_bins<T>::make(bins, lower, upper);
      std::uniform_real_distribution<T> dist(lower, upper);
      std::vector<T> xs(20000);
      for (T& x : xs) x = dist(rng);
      std::sort(xs.begin(), xs.end());
      int previous = 0;
      for (const T x : xs) {
        if (!(x < upper)) continue;
        const int b = map(x);
        ASSERT_GE(b, previous) << "x=" << x;
        ASSERT_LT(b, bins) << "x=" << x;
        const long double exact = (static_cast<long double>(x) - lower) * bins / (static_cast<long double>(upper) - lower);
        ASSERT_LE(std::abs(static_cast<long double>(b) - std::floor(exact)), 1.0L) << "x=" << x;
        previous = b;
      }
    }
}

TYPED_TEST(HistogramEvenBinsFloating, MakeRejectsBadArguments) {
  using T = TypeParam;
  using map = hist::even_bins<T>;
  constexpr T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  EXPECT_THROW(map::make(0, T(0), T(1)), std::invalid_argument);
  EXPECT_THROW(map::make(65537, T(0), T(1)), std::invalid_argument);
  EXPECT_THROW(map::make(4, T(1), T(1)), std::invalid_argument);
  EXPECT_THROW(map::make(4, T(2), T(1)), std::invalid_argument);
  EXPECT_THROW(map::make(4, T(0), inf), std::invalid_argument);
  EXPECT_THROW(map::make(4, -inf, T(0)), std::invalid_argument);
  EXPECT_THROW(map::make(4, nan, T(1)), std::invalid_argument);
  EXPECT_THROW(map::make(4, T(0), nan), std::invalid_argument);
}

// A finite range whose width (upper - lower) or scale (bins / width) overflows the sample type gives
// a zero or infinite scale and so no meaningful bin. Refusing such a range is fine; accepting it and
// then dropping or misplacing samples inside it is not (and the GPU's float-to-int conversion then
// disagrees with the CPU's).
TYPED_TEST(HistogramEvenBinsFloating, FiniteRangesWhoseScaleOverflowsAreRefusedOrExact) {
  using T = TypeParam;
  constexpr T big = std::numeric_limits<T>::max() / T(1.5);
  constexpr T tiny = std::numeric_limits<T>::denorm_min() * T(64);
  const struct {
    int bins;
    T lower, upper;
  } cases[] = {{4, -big, big}, {65536, T(0), tiny}};
  for (const auto& c : cases) {
    SCOPED_TRACE(::testing::Message() << "[" << c.lower << ", " << c.upper << ") in " << c.bins << " bins");
    hist::even_bins<T> map;
    try {
      map = hist::even_bins<T>::make(c.bins, c.lower, c.upper);
    } catch (const std::invalid_argument&) {
      continue;
    }
    for (const T x : {c.lower, c.lower / T(2) + c.upper / T(2), std::nextafter(c.upper, c.lower)}) {
      const long double exact = (static_cast<long double>(x) - c.lower) * c.bins /
                                (static_cast<long double>(c.upper) - c.lower);
      const int b = map(x);
      EXPECT_TRUE(b >= 0 && b < c.bins && std::abs(b - std::floor(exact)) <= 1)
          << "x=" << x << " belongs in bin " << std::floor(exact) << " but maps to " << b;
    }
  }
}

// --- range bins ----------------------------------------------------------------------------------

TEST(HistogramRangeBins, IntegerLevels) {
  const std::vector<std::int64_t> levels{-5, 0, 2, 10};
  const hist::range_bins<std::int32_t> map{levels.data(), 4};
  const std::pair<std::int32_t, int> cases[] = {{-6, -1}, {-5, 0}, {-1, 0}, {0, 1}, {1, 1},  {2, 2},
                                                {9, 2},   {10, -1}, {11, -1}, {std::numeric_limits<std::int32_t>::min(), -1},
                                                {std::numeric_limits<std::int32_t>::max(), -1}};
  for (const auto& [x, bin] : cases) EXPECT_EQ(map(x), bin) << "x=" << x;
}

TEST(HistogramRangeBins, LevelsBeyondTheSampleType) {
  const std::vector<std::int64_t> levels{-3, 100, 256};
  const hist::range_bins<std::uint8_t> map{levels.data(), 3};
  EXPECT_EQ(map(0), 0);
  EXPECT_EQ(map(99), 0);
  EXPECT_EQ(map(100), 1);
  EXPECT_EQ(map(255), 1);
}

TEST(HistogramRangeBins, OneBin) {
  const std::vector<std::int64_t> levels{7, 8};
  const hist::range_bins<std::uint16_t> map{levels.data(), 2};
  EXPECT_EQ(map(6), -1);
  EXPECT_EQ(map(7), 0);
  EXPECT_EQ(map(8), -1);
}

TYPED_TEST(HistogramEvenBinsFloating, RangeBinsDropNanAndOutside) {
  using T = TypeParam;
  constexpr T inf = std::numeric_limits<T>::infinity();
  const std::vector<T> levels{T(0), T(0.5), T(1.5), T(4)};
  const hist::range_bins<T> map{levels.data(), 4};
  EXPECT_EQ(map(std::numeric_limits<T>::quiet_NaN()), -1);
  EXPECT_EQ(map(-inf), -1);
  EXPECT_EQ(map(inf), -1);
  EXPECT_EQ(map(std::nextafter(T(0), -inf)), -1);
  EXPECT_EQ(map(T(0)), 0);
  EXPECT_EQ(map(std::nextafter(T(0.5), T(0))), 0);
  EXPECT_EQ(map(T(0.5)), 1);
  EXPECT_EQ(map(T(1.5)), 2);
  EXPECT_EQ(map(std::nextafter(T(4), T(0))), 2);
  EXPECT_EQ(map(T(4)), -1);
}

// Many irregular levels against a linear search for the last level <= x.
TEST(HistogramRangeBins, ManyIrregularLevelsMatchALinearSearch) {
  auto rng = lookback::test::make_rng(5);
  for (const int num_levels : {2, 3, 17, 1000, 65537}) {
    std::vector<std::int64_t> levels;
    std::int64_t next = -50000;
    for (int i = 0; i < num_levels; ++i) levels.push_back(next += 1 + static_cast<std::int64_t>(rng() % 7));
    const hist::range_bins<std::int32_t> map{levels.data(), num_levels};
    std::uniform_int_distribution<std::int64_t> dist(levels.front() - 10, levels.back() + 10);
    for (int i = 0; i < 5000; ++i) {
      const std::int64_t x = i < num_levels ? levels[i] : dist(rng);
      int expected = -1;
      for (int b = 0; b + 1 < num_levels; ++b)
        if (levels[b] <= x && x < levels[b + 1]) expected = b;
      ASSERT_EQ(map(static_cast<std::int32_t>(x)), expected) << "x=" << x << " with " << num_levels << " levels";
    }
  }
}

// --- the CPU reference and the run-time-typed functions --------------------------------------------

TEST(HistogramCpuReference, CountsAndDrops) {
  const std::vector<float> samples{0.f, 0.5f, 1.f, 1.f, 3.99f, 4.f, -0.1f, std::nanf("")};
  const auto counts = lookback::cpu::histogram<unsigned long long>(samples.data(), static_cast<std::int64_t>(samples.size()),
                                                                   4, hist::even_bins<float>::make(4, 0.f, 4.f));
  EXPECT_EQ(counts, (std::vector<unsigned long long>{2, 2, 0, 1}));
  EXPECT_EQ(lookback::cpu::histogram<unsigned>(samples.data(), 0, 3, hist::even_bins<float>::make(3, 0.f, 4.f)),
            (std::vector<unsigned>{0, 0, 0}));
}

template <class Counter>
std::vector<Counter> typed_even_cpu(const histogram_spec& spec, const void* samples, std::int64_t n) {
  std::vector<Counter> counts(static_cast<std::size_t>(spec.num_bins), Counter{12345});  // must all be overwritten
  lookback::typed::histogram_even_cpu(spec, samples, n, counts.data());
  return counts;
}

TEST(HistogramTypedCpu, EvenHistogramForEveryCounter) {
  const std::vector<std::uint8_t> samples{0, 1, 1, 2, 9, 10, 200, 255};
  histogram_spec spec{dtype::uint8, dtype::uint32, 5, 0, 10};  // width 2: {0,1,1}, {2}, {}, {}, {9}
  EXPECT_EQ(typed_even_cpu<std::uint32_t>(spec, samples.data(), 8), (std::vector<std::uint32_t>{3, 1, 0, 0, 1}));
  spec.counter = dtype::uint64;
  EXPECT_EQ(typed_even_cpu<std::uint64_t>(spec, samples.data(), 8), (std::vector<std::uint64_t>{3, 1, 0, 0, 1}));

  const std::vector<double> doubles{-1.5, 2.25, 0.0, std::nan("")};
  const histogram_spec float_spec{dtype::float64, dtype::uint64, 2, -1.5, 2.25};
  EXPECT_EQ(typed_even_cpu<std::uint64_t>(float_spec, doubles.data(), 4), (std::vector<std::uint64_t>{2, 0}));
}

TEST(HistogramTypedCpu, RangeCountsWrapInTheCounterType) {
  const std::vector<std::uint32_t> h32{4294967295u, 5, 7, 1};
  const std::vector<int> queries{0, 0, 1, 2, 1, 3, 3, 3, 0, 3};
  // Counts of bins 0..0, 1..2, 1..3, 3..3 and 0..3, the last one modulo 2^32 as the counter holds it.
  EXPECT_EQ(lookback::typed::range_counts_cpu(dtype::uint32, h32.data(), 4, queries),
            (std::vector<std::uint64_t>{4294967295u, 12, 13, 1, 12}));
  const std::vector<std::uint64_t> h64{4294967295u, 5, 7, 1};
  EXPECT_EQ(lookback::typed::range_counts_cpu(dtype::uint64, h64.data(), 4, queries),
            (std::vector<std::uint64_t>{4294967295u, 12, 13, 1, 4294967308u}));
  EXPECT_TRUE(lookback::typed::range_counts_cpu(dtype::uint64, h64.data(), 4, {}).empty());
}

TEST(HistogramTypedCpu, SampleAndCounterTypes) {
  for (const dtype t : {dtype::uint8, dtype::uint16, dtype::int32, dtype::uint32, dtype::float32, dtype::float64})
    EXPECT_TRUE(lookback::typed::is_histogram_sample(t)) << lookback::io::dtype_name(t);
  for (const dtype t : {dtype::int8, dtype::int16, dtype::int64, dtype::uint64, dtype::bool_})
    EXPECT_FALSE(lookback::typed::is_histogram_sample(t)) << lookback::io::dtype_name(t);
  EXPECT_TRUE(lookback::typed::is_histogram_counter(dtype::uint32));
  EXPECT_TRUE(lookback::typed::is_histogram_counter(dtype::uint64));
  EXPECT_FALSE(lookback::typed::is_histogram_counter(dtype::int32));
  EXPECT_FALSE(lookback::typed::is_histogram_counter(dtype::float32));
}

// --- spec validation ---------------------------------------------------------------------------------

std::string problem(dtype sample, int bins, double lower, double upper) {
  return lookback::typed::histogram_spec_problem(histogram_spec{sample, dtype::uint64, bins, lower, upper});
}

TEST(HistogramSpecProblem, NamesEachProblem) {
  constexpr double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(problem(dtype::uint8, 0, 0, 256), "--bins must be between 1 and 65536, not 0");
  EXPECT_EQ(problem(dtype::uint8, 65537, 0, 256), "--bins must be between 1 and 65536, not 65537");
  EXPECT_EQ(problem(dtype::float32, 4, 5, 2), "--range needs LO < HI");
  EXPECT_EQ(problem(dtype::int32, 4, 2, 2), "--range needs LO < HI");
  for (const auto& [lo, hi] : {std::pair<double, double>{0, inf}, {-inf, 0}, {nan, 1}, {0, nan}}) {
    EXPECT_EQ(problem(dtype::float64, 4, lo, hi), "--range must be finite") << lo << ":" << hi;
    EXPECT_EQ(problem(dtype::uint16, 4, lo, hi), "--range must be finite") << lo << ":" << hi;
  }
  for (const dtype t : {dtype::uint8, dtype::uint16, dtype::int32, dtype::uint32}) {
    EXPECT_EQ(problem(t, 4, 0.5, 10), "--range must be whole numbers for integer samples");
    EXPECT_EQ(problem(t, 4, 0, 10.25), "--range must be whole numbers for integer samples");
    EXPECT_EQ(problem(t, 4, 0, 1e19), "--range must be whole numbers for integer samples");
    EXPECT_EQ(problem(t, 4, -3, 1000), "");
  }
  EXPECT_EQ(problem(dtype::float32, 4, 0, 1e39), "--range does not fit float32 samples");
  EXPECT_EQ(problem(dtype::float64, 4, 0, 1e39), "");
  EXPECT_EQ(problem(dtype::float32, 4, 0.5, 10.25), "");
  EXPECT_EQ(problem(dtype::uint8, 1, 0, 1), "");
  EXPECT_EQ(problem(dtype::uint8, 65536, 0, 256), "");
}

// Whatever histogram_spec_problem accepts must be computable (the command reports a problem as a usage
// error, while an exception from the histogram itself becomes an internal-error exit), and what the
// sample's arithmetic cannot hold it refuses up front.
TEST(HistogramSpecProblem, RangesAtTheTypesEdgesAreRefusedOrComputed) {
  const histogram_spec refused[] = {
      {dtype::float32, dtype::uint64, 4, 1.0, 1.00000001},             // distinct doubles, one float
      {dtype::int32, dtype::uint64, 2, -9.0e18, 9.0e18},                // range * bins past 64 bits
      {dtype::uint32, dtype::uint64, 65536, 0, 4294967296.0 * 65536},  // the same with a positive range
      {dtype::float32, dtype::uint64, 4, -1.0e38, 3.0e38},              // upper - lower past FLT_MAX
  };
  for (const histogram_spec& spec : refused)
    EXPECT_NE(lookback::typed::histogram_spec_problem(spec).find("--range "), std::string::npos)
        << lookback::io::dtype_name(spec.sample) << " [" << spec.lower << ", " << spec.upper << ")";

  // Each accepted range's extreme samples, counted in the bins CUB's HistogramEven puts them in.
  const auto expect_bins = [](const histogram_spec& spec, const auto& samples, const std::vector<std::uint64_t>& bins) {
    SCOPED_TRACE(::testing::Message() << lookback::io::dtype_name(spec.sample) << " " << spec.num_bins << " bins over ["
                                      << spec.lower << ", " << spec.upper << ")");
    ASSERT_EQ(lookback::typed::histogram_spec_problem(spec), "");
    std::vector<std::uint64_t> counts(static_cast<std::size_t>(spec.num_bins), 0);
    ASSERT_NO_THROW(lookback::typed::histogram_even_cpu(spec, samples.data(),
                                                        static_cast<std::int64_t>(samples.size()), counts.data()));
    std::vector<std::uint64_t> expected(counts.size(), 0);
    for (const std::uint64_t b : bins) ++expected[b];
    EXPECT_EQ(counts, expected);
  };
  constexpr std::uint32_t u32_max = std::numeric_limits<std::uint32_t>::max();
  constexpr std::int32_t i32_min = std::numeric_limits<std::int32_t>::min();
  constexpr std::int32_t i32_max = std::numeric_limits<std::int32_t>::max();
  expect_bins({dtype::uint32, dtype::uint64, 65536, 0, 4294967296.0},
              std::vector<std::uint32_t>{0, 65535, 65536, u32_max - 65536, u32_max}, {0, 0, 1, 65534, 65535});
  expect_bins({dtype::int32, dtype::uint64, 2, -2147483648.0, 2147483648.0},
              std::vector<std::int32_t>{i32_min, -1, 0, i32_max}, {0, 0, 1, 1});
  expect_bins({dtype::float32, dtype::uint64, 4, -1.0e38, 2.0e38},
              std::vector<float>{-1.0e38F, 0.0F, 0.9e38F, 1.9e38F, 2.0e38F}, {0, 1, 2, 3});  // upper: in none
}

}  // namespace
