// The range histogram: every sample type, counter and bin count against the CPU reference and CUB
// (exact counts), bins between caller-given levels, the prefix-sum range queries, and the argument
// checks (which need no GPU).
#include "support/gpu_test.hpp"
#include "support/test_sizes.hpp"
#include "typed/histogram_ops.hpp"
#include "typed/histogram_visit.hpp"

#include <lookback/algorithms/cpu/histogram.hpp>
#include <lookback/algorithms/histogram.cuh>
#include <lookback/primitives/device_buffer.cuh>
#include <lookback/primitives/stream.cuh>

#include <cub/device/device_histogram.cuh>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <numeric>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace lookback::test {
namespace {

using io::dtype;
using typed::histogram_spec;
using typed::implementation;

const dtype sample_types[] = {dtype::uint8, dtype::uint16, dtype::int32, dtype::uint32, dtype::float32, dtype::float64};
const dtype counter_types[] = {dtype::uint32, dtype::uint64};

template <class Sample>
io::host_array array_of(const std::vector<Sample>& values) {
  io::host_array a{io::dtype_of<Sample>(), {static_cast<std::int64_t>(values.size())}, {}};
  a.bytes.resize(values.size() * sizeof(Sample));
  if (!values.empty()) std::memcpy(a.bytes.data(), values.data(), a.bytes.size());
  return a;
}

/// Samples whose element type is known only at run time, and how many of them lie in the range.
struct generated {
  io::host_array samples;
  std::int64_t in_range = 0;
};

template <class Sample>
std::int64_t count_in(const std::vector<Sample>& xs, histogram::level_t<Sample> lower, histogram::level_t<Sample> upper) {
  return std::count_if(xs.begin(), xs.end(), [&](Sample x) {
    const auto v = static_cast<histogram::level_t<Sample>>(x);
    return lower <= v && v < upper;  // false for NaN
  });
}

// --- sample shapes -------------------------------------------------------------------------------

enum class shape {
  uniform,       // over the range
  one_bin,       // one in-range value throughout: whole warps agree on a bin
  half_outside,  // half below lower or at/above upper, where the sample type holds such values
  with_nans,     // floating point: NaNs and infinities among in-range values
  on_edges,      // the bin edges and their neighbours, lower, upper
};
const shape all_shapes[] = {shape::uniform, shape::one_bin, shape::half_outside, shape::with_nans, shape::on_edges};

const char* shape_name(shape s) {
  switch (s) {
    case shape::uniform: return "uniform";
    case shape::one_bin: return "one_bin";
    case shape::half_outside: return "half_outside";
    case shape::with_nans: return "with_nans";
    case shape::on_edges: return "on_edges";
  }
  return "?";
}

/// Draws samples of one shape for an even histogram's range, in the level type the histogram
/// compares them in (the spec's doubles converted as typed::histogram_even converts them).
template <class Sample>
class sample_maker {
 public:
  using level = histogram::level_t<Sample>;
  static constexpr bool floating = std::is_floating_point_v<Sample>;

  sample_maker(const histogram_spec& spec, std::mt19937_64& rng)
      : lower_(static_cast<level>(spec.lower)), upper_(static_cast<level>(spec.upper)), bins_(spec.num_bins), rng_(rng) {}

  /// nullopt when the shape does not apply: NaNs for integers, or no value of the type outside the range.
  std::optional<std::vector<Sample>> make(shape s, std::int64_t n) {
    if (s == shape::with_nans && !floating) return std::nullopt;
    if (s == shape::half_outside && !can_go_below() && !can_go_above()) return std::nullopt;
    std::vector<Sample> out(static_cast<std::size_t>(n));
    switch (s) {
      case shape::uniform:
        for (Sample& x : out) x = inside();
        break;
      case shape::one_bin:
        std::fill(out.begin(), out.end(), inside());
        break;
      case shape::half_outside:
        for (Sample& x : out) x = rng_() % 2 == 0 ? inside() : outside();
        break;
      case shape::with_nans:
        if constexpr (floating)
          for (Sample& x : out) x = maybe_not_finite();
        break;
      case shape::on_edges: {
        std::vector<Sample> pool = edges();
        std::shuffle(pool.begin(), pool.end(), rng_);
        for (std::size_t i = 0; i < out.size(); ++i) out[i] = pool[i % pool.size()];
        break;
      }
    }
    return out;
  }

  std::int64_t count_in_range(const std::vector<Sample>& xs) const { return count_in(xs, lower_, upper_); }

 private:
  static level type_min() { return static_cast<level>(std::numeric_limits<Sample>::lowest()); }
  static level type_max() { return static_cast<level>(std::numeric_limits<Sample>::max()); }
  bool can_go_below() const { return floating || lower_ > type_min(); }
  bool can_go_above() const { return floating || upper_ <= type_max(); }
  level uniform_level(level a, level b) {  // [a, b] for integers, [a, b) for floating point
    if constexpr (floating)
      return std::uniform_real_distribution<level>(a, b)(rng_);
    else
      return std::uniform_int_distribution<level>(a, b)(rng_);
  }

  // CUB's floating-point even bins have no defined answer where (x - lower) * (bins / range) rounds
  // up to `bins` just below upper (it counts past its last privatised counter); ours counts such a
  // sample in the last bin, which just_below_upper_counts_in_the_last_bin checks against the CPU
  // reference. Samples that are also compared with CUB keep clear of that sliver.
  bool near_upper(level x) const {
    if constexpr (floating)
      return x < upper_ && upper_ - x < (upper_ - lower_) * (16 * std::numeric_limits<level>::epsilon());
    else
      return false;
  }

  Sample inside() {
    if constexpr (floating) {
      for (;;) {
        const level x = uniform_level(lower_, upper_);
        if (x < upper_ && !near_upper(x)) return x;
      }
    } else {
      return static_cast<Sample>(uniform_level(std::max(lower_, type_min()), std::min(upper_ - 1, type_max())));
    }
  }

  // A quarter of them exactly one step outside (just below lower, or upper itself).
  Sample outside() {
    const bool below = can_go_below() && (!can_go_above() || rng_() % 2 == 0);
    const bool adjacent = rng_() % 4 == 0;
    if constexpr (floating) {
      const level width = upper_ - lower_;
      if (below) return adjacent ? std::nextafter(lower_, -std::numeric_limits<level>::infinity()) : uniform_level(lower_ - width, lower_);
      return adjacent ? upper_ : uniform_level(upper_, upper_ + width);
    } else {
      if (below) return static_cast<Sample>(adjacent ? lower_ - 1 : uniform_level(type_min(), lower_ - 1));
      return static_cast<Sample>(adjacent ? upper_ : uniform_level(upper_, type_max()));
    }
  }

  Sample maybe_not_finite() {
    switch (rng_() % 16) {
      case 0: return std::numeric_limits<Sample>::infinity();
      case 1: return -std::numeric_limits<Sample>::infinity();
      case 2: case 3: case 4: case 5: return std::numeric_limits<Sample>::quiet_NaN();
      default: return inside();
    }
  }

  // Integers: the first value of every bin and the last of the one before, from exact arithmetic.
  // Floating point: lower + i * (upper - lower) / bins as the user would write it, which rounding may
  // put in bin i or i - 1 (the CPU reference and CUB share the formula, so the test compares with
  // them, not with i), and each edge's neighbours; then upper and the values just past the range.
  std::vector<Sample> edges() const {
    std::vector<Sample> pool;
    const auto keep = [&](level x) {
      if ((floating || (x >= type_min() && x <= type_max())) && !near_upper(x)) pool.push_back(static_cast<Sample>(x));
    };
    if constexpr (floating) {
      constexpr level inf = std::numeric_limits<level>::infinity();
      for (int i = 0; i < bins_; ++i) {
        const level edge = lower_ + static_cast<level>(i) * (upper_ - lower_) / static_cast<level>(bins_);
        keep(edge);
        keep(std::nextafter(edge, -inf));
        keep(std::nextafter(edge, inf));
      }
      keep(upper_);
      keep(std::nextafter(upper_, inf));
    } else {
      const auto range = static_cast<std::uint64_t>(upper_ - lower_);  // at most 2^32 here, so no overflow below
      for (int i = 0; i <= bins_; ++i) {
        const auto first = lower_ + static_cast<level>((static_cast<std::uint64_t>(i) * range + bins_ - 1) / bins_);
        keep(first);
        keep(first - 1);
      }
    }
    return pool;
  }

  level lower_, upper_;
  int bins_;
  std::mt19937_64& rng_;
};

std::optional<generated> make_samples(const histogram_spec& spec, shape s, std::int64_t n, std::mt19937_64& rng) {
  return typed::visit_histogram_sample(spec.sample, [&](auto zero) -> std::optional<generated> {
    sample_maker<decltype(zero)> maker(spec, rng);
    const auto values = maker.make(s, n);
    if (!values) return std::nullopt;
    return generated{array_of(*values), maker.count_in_range(*values)};
  });
}

// --- running and comparing ---------------------------------------------------------------------

std::vector<std::uint64_t> widen(dtype counter, const std::vector<std::byte>& bytes) {
  std::vector<std::uint64_t> out(bytes.size() / io::dtype_size(counter));
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (counter == dtype::uint32) {
      std::uint32_t c;
      std::memcpy(&c, bytes.data() + i * sizeof c, sizeof c);
      out[i] = c;
    } else {
      std::memcpy(&out[i], bytes.data() + i * sizeof(std::uint64_t), sizeof(std::uint64_t));
    }
  }
  return out;
}

/// The inverse of widen: counts stored as the counter type's bytes.
std::vector<std::byte> narrow(dtype counter, const std::vector<std::uint64_t>& counts) {
  std::vector<std::byte> bytes(counts.size() * io::dtype_size(counter));
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (counter == dtype::uint32) {
      const auto c = static_cast<std::uint32_t>(counts[i]);
      std::memcpy(bytes.data() + i * sizeof c, &c, sizeof c);
    } else {
      std::memcpy(bytes.data() + i * sizeof(std::uint64_t), &counts[i], sizeof(std::uint64_t));
    }
  }
  return bytes;
}

std::uint64_t total(const std::vector<std::uint64_t>& counts) {
  std::uint64_t sum = 0;
  for (const std::uint64_t c : counts) sum += c;
  return sum;
}

std::vector<std::uint64_t> cpu_even(const histogram_spec& spec, const void* samples, std::int64_t n) {
  std::vector<std::byte> out(static_cast<std::size_t>(spec.num_bins) * io::dtype_size(spec.counter));
  typed::histogram_even_cpu(spec, samples, n, out.data());
  return widen(spec.counter, out);
}

/// One device run into a poisoned histogram, so that a bin the implementation never writes shows.
std::vector<std::uint64_t> gpu_even(implementation impl, const histogram_spec& spec, const void* d_samples,
                                    std::int64_t n, cudaStream_t stream) {
  device_buffer<std::byte> d_hist(static_cast<std::size_t>(spec.num_bins) * io::dtype_size(spec.counter), stream);
  d_hist.fill_bytes(poison_byte);
  std::size_t temp_bytes = 0;
  typed::histogram_even(impl, spec, nullptr, temp_bytes, d_samples, n, d_hist.data(), stream);
  device_buffer<std::byte> d_temp(temp_bytes, stream);
  typed::histogram_even(impl, spec, d_temp.data(), temp_bytes, d_samples, n, d_hist.data(), stream);
  return widen(spec.counter, to_host(d_hist));
}

/// Fails (once, at the first differing bin) unless `actual` equals `expected`.
template <class Count>
void expect_counts(const std::vector<Count>& expected, const char* expected_from, const std::vector<Count>& actual,
                   const char* actual_from, const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  const auto [e, a] = std::mismatch(expected.begin(), expected.end(), actual.begin());
  if (e != expected.end())
    ADD_FAILURE() << what << ": bin " << (e - expected.begin()) << " is " << *a << " from " << actual_from << ", "
                  << *e << " from " << expected_from;
}

std::string describe(const histogram_spec& spec, const std::string& what, std::int64_t n) {
  std::ostringstream os;
  os.precision(12);
  os << io::dtype_name(spec.sample) << " [" << spec.lower << ", " << spec.upper << ") in " << spec.num_bins
     << " bins, " << what << ", n=" << n;
  return os.str();
}

/// Samples in host and device memory (the device pointer may be offset from an allocation).
struct sample_view {
  const std::byte* host;
  const std::byte* device;
  std::int64_t n;
  std::optional<std::int64_t> in_range;  // when known independently of the bin map
};

/// Ours against the CPU reference and against CUB, for both counter types; `by_hand`, when given, is
/// the expected histogram worked out without the bin map.
void check_even(histogram_spec spec, const sample_view& v, const std::string& what,
                const std::vector<std::uint64_t>* by_hand = nullptr) {
  const cuda_stream stream;
  for (const dtype counter : counter_types) {
    spec.counter = counter;
    const std::string label = what + ", " + std::string(io::dtype_name(counter)) + " counters";
    const auto expected = cpu_even(spec, v.host, v.n);
    if (v.in_range) EXPECT_EQ(total(expected), static_cast<std::uint64_t>(*v.in_range)) << label << ": CPU reference total";
    if (by_hand) expect_counts(*by_hand, "hand", expected, "the CPU reference", label);
    const auto ours = gpu_even(implementation::lookback, spec, v.device, v.n, stream);
    expect_counts(expected, "the CPU reference", ours, "ours", label);
    expect_counts(gpu_even(implementation::cub, spec, v.device, v.n, stream), "CUB", ours, "ours", label);
  }
}

void check_even(const histogram_spec& spec, const generated& g, const std::string& what,
                const std::vector<std::uint64_t>* by_hand = nullptr) {
  const cuda_stream stream;
  const auto d_samples = to_device(g.samples.bytes, stream);
  check_even(spec, sample_view{g.samples.bytes.data(), d_samples.data(), g.samples.size(), g.in_range}, what, by_hand);
}

// --- even bins: the matrix ------------------------------------------------------------------------

/// One block's trip through the vectorised loop: 256 threads x 4 vectors of 16 bytes.
std::int64_t block_trip(dtype type) { return 256 * 4 * 16 / static_cast<std::int64_t>(io::dtype_size(type)); }

/// Two ranges per type. Integers: the whole type first (uint8 into 256 bins is the identity; int32's
/// upper level 2^31 is past its largest value), then one with lower > 0 or negative and a prime width
/// (197, 997, 1997), which no bin count divides. Floating point: exact and inexact binary fractions.
std::vector<std::pair<double, double>> ranges_for(dtype type) {
  switch (type) {
    case dtype::uint8: return {{0, 256}, {3, 200}};
    case dtype::uint16: return {{0, 65536}, {3, 1000}};
    case dtype::int32: return {{-2147483648.0, 2147483648.0}, {-1000, 997}};
    case dtype::uint32: return {{0, 4294967296.0}, {3, 1000}};
    default: return {{-1.5, 2.25}, {0.1, 0.7}};
  }
}

/// sizes_around one block trip up to two trips; the big ones (to 2^24) only for uniform samples over
/// the first range in 256 bins (shared-memory path) and 65536 bins (global path).
std::vector<std::int64_t> sizes_for(dtype type, int bins, shape s, bool first_range) {
  const std::int64_t trip = block_trip(type);
  const bool big = first_range && s == shape::uniform && (bins == 256 || bins == 65536);
  std::vector<std::int64_t> sizes;
  for (const std::int64_t n : sizes_around(trip))
    if (n <= 2 * trip + 1 || big) sizes.push_back(n);
  return sizes;
}

using matrix_param = std::tuple<dtype, int>;
class histogram_even_matrix : public gpu_test, public ::testing::WithParamInterface<matrix_param> {};

TEST_P(histogram_even_matrix, matches_cpu_reference_and_cub) {
  const auto [type, bins] = GetParam();
  const auto ranges = ranges_for(type);
  for (std::size_t r = 0; r < ranges.size(); ++r)
    for (const shape s : all_shapes)
      for (const std::int64_t n : sizes_for(type, bins, s, r == 0)) {
        const histogram_spec spec{type, dtype::uint32, bins, ranges[r].first, ranges[r].second};
        auto rng = make_rng(static_cast<std::uint64_t>(n) * 1000003 + static_cast<std::uint64_t>(bins) * 101 +
                            static_cast<int>(type) * 13 + r * 7 + static_cast<int>(s));
        const auto g = make_samples(spec, s, n, rng);
        if (!g) break;
        check_even(spec, *g, describe(spec, shape_name(s), n));
        if (HasFatalFailure()) return;
      }
}

INSTANTIATE_TEST_SUITE_P(all, histogram_even_matrix,
                         ::testing::Combine(::testing::ValuesIn(sample_types),
                                            ::testing::Values(1, 2, 255, 256, 257, 4096, 65536)),
                         [](const ::testing::TestParamInfo<matrix_param>& info) {
                           return std::string(io::dtype_name(std::get<0>(info.param))) + "_" +
                                  std::to_string(std::get<1>(info.param)) + "_bins";
                         });

// --- even bins: hand-checked, rounding, pointers, sizes ---------------------------------------------

/// floor((x - lower) * bins / (upper - lower)) in exact 64-bit arithmetic (range * bins < 2^63 here).
template <class Sample>
std::vector<std::uint64_t> exact_integer_counts(const std::vector<Sample>& xs, std::int64_t lower, std::int64_t upper,
                                                int bins) {
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(bins));
  for (const Sample s : xs) {
    const std::int64_t x = s;
    if (x >= lower && x < upper) ++counts[static_cast<std::size_t>((x - lower) * bins / (upper - lower))];
  }
  return counts;
}

/// Integer samples spread over the range and 50 values either side (as far as the type reaches).
template <class Sample>
void check_integer_bins_by_hand(std::int64_t lower, std::int64_t upper, int bins, std::int64_t n, std::uint64_t salt) {
  const histogram_spec spec{io::dtype_of<Sample>(), dtype::uint32, bins, static_cast<double>(lower), static_cast<double>(upper)};
  auto rng = make_rng(salt);
  const std::int64_t lo = std::max<std::int64_t>(lower - 50, std::numeric_limits<Sample>::lowest());
  const std::int64_t hi = std::min<std::int64_t>(upper + 50, std::numeric_limits<Sample>::max());
  std::uniform_int_distribution<std::int64_t> dist(lo, hi);
  std::vector<Sample> xs(static_cast<std::size_t>(n));
  for (Sample& x : xs) x = static_cast<Sample>(dist(rng));
  const auto by_hand = exact_integer_counts(xs, lower, upper, bins);
  check_even(spec, generated{array_of(xs), count_in<Sample>(xs, lower, upper)}, describe(spec, "by hand", n), &by_hand);
}

class histogram_even_api : public gpu_test {};

TEST_F(histogram_even_api, integer_bins_match_exact_arithmetic) {
  const std::int64_t n = std::min<std::int64_t>(max_test_size(), 100003);
  check_integer_bins_by_hand<std::uint8_t>(0, 256, 256, n, 1);  // bin i counts the value i
  check_integer_bins_by_hand<std::uint16_t>(0, 65536, 65536, n, 2);
  check_integer_bins_by_hand<std::uint32_t>(0, std::int64_t{1} << 32, 65536, n, 3);  // bin = x >> 16
  check_integer_bins_by_hand<std::uint8_t>(3, 200, 7, n, 4);
  check_integer_bins_by_hand<std::uint16_t>(3, 1000, 7, n, 5);
  check_integer_bins_by_hand<std::int32_t>(3, 1000, 7, n, 6);
  check_integer_bins_by_hand<std::uint32_t>(3, 1000, 7, n, 7);
  check_integer_bins_by_hand<std::int32_t>(-10, 10, 4, n, 8);
  check_integer_bins_by_hand<std::int32_t>(-1000, 997, 255, n, 9);
}

// A policy's shared budget past what the device lets a block have (as 96 KiB is on Turing's 64) keeps
// within the device's: fewer copies of the bins, or counts straight to global memory, not a launch the
// device refuses.
TEST_F(histogram_even_api, a_shared_budget_past_the_device_limit_keeps_within_it) {
  using huge_budget = lookback::policy::histogram_config<256, 4, 1 << 30, false>;
  const std::int64_t n = std::min<std::int64_t>(max_test_size(), 100003);
  auto rng = make_rng(11);
  std::uniform_int_distribution<std::uint32_t> dist(0, 70000);
  std::vector<std::uint32_t> xs(static_cast<std::size_t>(n));
  for (std::uint32_t& x : xs) x = dist(rng);
  const cuda_stream stream;
  const auto d_samples = to_device(xs, stream);
  for (const int bins : {4096, 40000, 65536}) {
    std::vector<std::uint32_t> by_hand(static_cast<std::size_t>(bins));
    for (const std::uint32_t x : xs)
      if (x < static_cast<std::uint32_t>(bins)) ++by_hand[x];
    device_buffer<std::uint32_t> d_counts(static_cast<std::size_t>(bins), stream);
    d_counts.fill_bytes(poison_byte);
    histogram::detail::run_with_policy<huge_budget>(
        d_samples.data(), n, d_counts.data(), bins,
        histogram::even_bins<std::uint32_t>::make(bins, 0, bins), stream.get());
    EXPECT_EQ(to_host(d_counts), by_hand) << bins << " bins";
  }
}

// No samples: a null array is accepted, and the counters are still cleared.
TEST_F(histogram_even_api, a_null_array_of_no_samples_clears_the_counters) {
  const cuda_stream stream;
  device_buffer<std::uint32_t> d_counters(256, stream);
  d_counters.fill_bytes(poison_byte);
  histogram_even(static_cast<const std::uint8_t*>(nullptr), 0, d_counters.data(), 256, 0, 256, stream.get());
  for (const std::uint32_t c : to_host(d_counters)) ASSERT_EQ(c, 0u);
}

// The product (x - lower) * (bins / range) rounds up to `bins` for some x just below upper (in float,
// [-1.5, 2.25) in one bin does); ours counts those samples in the last bin, as the CPU reference does.
// CUB is not compared here: its answer for them is undefined.
template <class Sample>
void check_just_below_upper(std::int64_t n) {
  for (const int bins : {1, 3, 255, 256, 65536}) {
    const histogram_spec spec{io::dtype_of<Sample>(), dtype::uint64, bins, -1.5, 2.25};
    Sample below[4] = {std::nextafter(Sample(2.25), Sample(0))};
    for (int k = 1; k < 4; ++k) below[k] = std::nextafter(below[k - 1], Sample(0));
    // The first half one value (whole warps aggregate), then the four values below upper in turn.
    std::vector<Sample> xs(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < xs.size(); ++i) xs[i] = i < xs.size() / 2 ? below[0] : below[i % 4];
    std::vector<std::uint64_t> by_hand(static_cast<std::size_t>(bins));
    by_hand.back() = static_cast<std::uint64_t>(n);
    const cuda_stream stream;
    const auto d_samples = to_device(xs, stream);
    const std::string what = describe(spec, "just below upper", n);
    EXPECT_EQ(cpu_even(spec, xs.data(), n), by_hand) << what;
    expect_counts(by_hand, "hand", gpu_even(implementation::lookback, spec, d_samples.data(), n, stream), "ours", what);
  }
}

TEST_F(histogram_even_api, just_below_upper_counts_in_the_last_bin) {
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{4099}, std::int64_t{100003}}) {
    if (n > max_test_size()) continue;
    check_just_below_upper<float>(n);
    check_just_below_upper<double>(n);
  }
}

// A sample pointer off 16-byte alignment takes the scalar path for the whole input.
TEST_F(histogram_even_api, unaligned_samples) {
  for (const dtype type : sample_types) {
    const std::int64_t n = std::min<std::int64_t>(max_test_size(), 2 * block_trip(type) + 37);
    for (const int bins : {257, 65536}) {
      const auto range = ranges_for(type).back();
      const histogram_spec spec{type, dtype::uint32, bins, range.first, range.second};
      auto rng = make_rng(500 + static_cast<int>(type) * 3 + bins);
      const generated g = *make_samples(spec, shape::half_outside, n, rng);
      const cuda_stream stream;
      const auto d_samples = to_device(g.samples.bytes, stream);
      const std::size_t size = io::dtype_size(type);
      for (const std::int64_t skip : {std::int64_t{1}, std::int64_t{3}}) {
        if (skip > n) continue;
        const std::size_t offset = static_cast<std::size_t>(skip) * size;
        check_even(spec, sample_view{g.samples.bytes.data() + offset, d_samples.data() + offset, n - skip, std::nullopt},
                   describe(spec, "starting " + std::to_string(offset) + " bytes into the allocation", n - skip));
      }
    }
  }
}

TEST_F(histogram_even_api, empty_input_gives_all_zero_counts) {
  const cuda_stream stream;
  for (const dtype type : sample_types)
    for (const dtype counter : counter_types)
      for (const int bins : {1, 257, 65536}) {
        const auto range = ranges_for(type).front();
        const histogram_spec spec{type, counter, bins, range.first, range.second};
        const auto got = gpu_even(implementation::lookback, spec, nullptr, 0, stream);
        EXPECT_EQ(got, std::vector<std::uint64_t>(static_cast<std::size_t>(bins), 0))
            << describe(spec, std::string(io::dtype_name(counter)) + " counters", 0);
      }
}

// Atomic races show up as rare miscounts: the same skewed input (nine in ten samples in one bin)
// counted many times, each run checked exactly, through the shared-memory and the global paths.
TEST_F(histogram_even_api, repeated_runs_are_exact) {
  const std::int64_t n = std::min<std::int64_t>(max_test_size(), (std::int64_t{1} << 22) + 5);
  auto rng = make_rng(77);
  std::vector<std::uint32_t> xs(static_cast<std::size_t>(n));
  for (std::uint32_t& x : xs) x = rng() % 10 == 0 ? static_cast<std::uint32_t>(rng()) : 123456789u;
  const cuda_stream stream;
  const auto d_samples = to_device(xs, stream);
  for (const int bins : {256, 4096, 65536}) {
    const histogram_spec spec{dtype::uint32, dtype::uint32, bins, 0, 4294967296.0};
    const auto expected = cpu_even(spec, xs.data(), n);
    for (int run = 0; run < 20; ++run) {
      expect_counts(expected, "the CPU reference", gpu_even(implementation::lookback, spec, d_samples.data(), n, stream),
                    "ours", describe(spec, "run " + std::to_string(run), n));
      if (HasFailure()) return;
    }
  }
}

class histogram_large : public gpu_test {};

TEST_F(histogram_large, uint32_256_bins_at_2_pow_28) {
  const std::int64_t n = std::int64_t{1} << 28;
  if (n > max_test_size()) GTEST_SKIP() << "above LOOKBACK_TEST_MAX_N";
  auto rng = make_rng(28);
  std::vector<std::uint32_t> xs(static_cast<std::size_t>(n));
  for (std::uint32_t& x : xs) x = static_cast<std::uint32_t>(rng());
  const std::int64_t upper = std::int64_t{1} << 32;
  const auto by_hand = exact_integer_counts(xs, 0, upper, 256);  // bin = x >> 24
  const histogram_spec spec{dtype::uint32, dtype::uint32, 256, 0, static_cast<double>(upper)};
  check_even(spec, generated{array_of(xs), n}, describe(spec, "uniform", n), &by_hand);
}

// Past 2^31 samples; in the GPU bundle's run of disabled tests. Checked against a count by hand (the
// CPU reference and CUB would add minutes of host work or 32-bit sample counts).
TEST_F(histogram_large, DISABLED_past_2_pow_31_samples) {
  const std::int64_t n = (std::int64_t{1} << 31) + 4099;
  auto rng = make_rng(2031);
  std::vector<std::uint8_t> xs(static_cast<std::size_t>(n));
  for (std::uint8_t& x : xs) x = static_cast<std::uint8_t>(rng());
  const auto by_hand = exact_integer_counts(xs, 0, 256, 256);
  const cuda_stream stream;
  const auto d_samples = to_device(xs, stream);
  for (const dtype counter : counter_types) {
    const histogram_spec spec{dtype::uint8, counter, 256, 0, 256.0};
    expect_counts(by_hand, "hand", gpu_even(implementation::lookback, spec, d_samples.data(), n, stream), "ours",
                  describe(spec, "uniform", n));
  }
}

// --- bins between caller-given levels ---------------------------------------------------------------

template <class Sample, class Counter>
std::vector<Counter> cub_histogram_range(const Sample* d_samples, std::int64_t n, int bins,
                                         const histogram::level_t<Sample>* d_levels, cudaStream_t stream) {
  device_buffer<Counter> d_hist(static_cast<std::size_t>(bins), stream);
  d_hist.fill_bytes(poison_byte);
  std::size_t temp_bytes = 0;
  LOOKBACK_CUDA_TRY(cub::DeviceHistogram::HistogramRange(nullptr, temp_bytes, d_samples, d_hist.data(), bins + 1,
                                                         d_levels, n, stream));
  device_buffer<std::byte> d_temp(temp_bytes, stream);
  LOOKBACK_CUDA_TRY(cub::DeviceHistogram::HistogramRange(d_temp.data(), temp_bytes, d_samples, d_hist.data(), bins + 1,
                                                         d_levels, n, stream));
  return to_host(d_hist);
}

/// bins + 1 strictly ascending levels from `first`: equal steps, or random steps of 1 to 3 units.
template <class Sample>
std::vector<histogram::level_t<Sample>> make_levels(histogram::level_t<Sample> first, histogram::level_t<Sample> unit,
                                                    int bins, bool irregular, std::mt19937_64& rng) {
  std::vector<histogram::level_t<Sample>> levels{first};
  for (int i = 1; i <= bins; ++i) {
    const auto step = irregular ? unit * static_cast<histogram::level_t<Sample>>(1 + rng() % 3) : unit;
    levels.push_back(levels.back() + step);
  }
  return levels;
}

/// A quarter exactly on levels (those the type holds), the rest spread over the levels and an eighth
/// of their span either side (as far as the type reaches); floating point adds NaNs.
template <class Sample>
std::vector<Sample> samples_around(const std::vector<histogram::level_t<Sample>>& levels, std::int64_t n,
                                   std::mt19937_64& rng) {
  using level = histogram::level_t<Sample>;
  constexpr bool floating = std::is_floating_point_v<Sample>;
  const level type_min = static_cast<level>(std::numeric_limits<Sample>::lowest());
  const level type_max = static_cast<level>(std::numeric_limits<Sample>::max());
  const level margin = (levels.back() - levels.front()) / 8 + 1;
  const level lo = std::max(levels.front() - margin, type_min), hi = std::min(levels.back() + margin, type_max);
  if (!(lo <= hi)) throw std::logic_error("no value of the sample type near these levels");
  std::vector<level> held;
  std::copy_if(levels.begin(), levels.end(), std::back_inserter(held), [&](level l) { return l >= type_min && l <= type_max; });

  std::vector<Sample> xs(static_cast<std::size_t>(n));
  for (Sample& x : xs) {
    const auto pick = rng() % 16;
    if (floating && pick == 0)
      x = std::numeric_limits<Sample>::quiet_NaN();
    else if (pick < 4 && !held.empty())
      x = static_cast<Sample>(held[rng() % held.size()]);
    else if constexpr (floating)
      x = std::uniform_real_distribution<level>(lo, hi)(rng);
    else
      x = static_cast<Sample>(std::uniform_int_distribution<level>(lo, hi)(rng));
  }
  return xs;
}

template <class Sample, class Counter>
void check_range_histogram(const std::vector<histogram::level_t<Sample>>& levels, const std::vector<Sample>& xs,
                           const std::string& what) {
  const int bins = static_cast<int>(levels.size()) - 1;
  const auto n = static_cast<std::int64_t>(xs.size());
  const auto expected = cpu::histogram<Counter>(xs.data(), n, bins, histogram::range_bins<Sample>{levels.data(), bins + 1});
  EXPECT_EQ(std::accumulate(expected.begin(), expected.end(), std::uint64_t{0}),
            static_cast<std::uint64_t>(count_in(xs, levels.front(), levels.back())))
      << what << ": CPU reference total";

  const cuda_stream stream;
  const auto d_samples = to_device(xs, stream);
  const auto d_levels = to_device(levels, stream);
  device_buffer<Counter> d_hist(static_cast<std::size_t>(bins), stream);
  d_hist.fill_bytes(poison_byte);
  histogram_range(d_samples.data(), n, d_hist.data(), bins, d_levels.data(), stream.get());
  const auto ours = to_host(d_hist);
  expect_counts(expected, "the CPU reference", ours, "ours", what);
  expect_counts(cub_histogram_range<Sample, Counter>(d_samples.data(), n, bins, d_levels.data(), stream), "CUB", ours,
                "ours", what);
}

/// Equal and irregular levels, one bin to 65536 (the global path), sizes to 2^20 + 7 for one case.
template <class Sample, class Counter>
void check_range_histograms(histogram::level_t<Sample> first, histogram::level_t<Sample> unit, std::uint64_t salt) {
  const std::int64_t trip = block_trip(io::dtype_of<Sample>());
  for (const int bins : {1, 7, 256, 1000, 65536})
    for (const bool irregular : {false, true})
      for (const std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{31}, std::int64_t{32}, std::int64_t{33},
                                   std::int64_t{1000}, trip - 1, trip, trip + 1, std::int64_t{100003},
                                   (std::int64_t{1} << 20) + 7}) {
        if (n > max_test_size() || (n > 100003 && (bins != 256 || irregular))) continue;
        auto rng = make_rng(salt + static_cast<std::uint64_t>(bins) * 31 + irregular * 7 + static_cast<std::uint64_t>(n));
        const auto levels = make_levels<Sample>(first, unit, bins, irregular, rng);
        std::ostringstream what;
        what << io::dtype_name(io::dtype_of<Sample>()) << " " << (irregular ? "irregular" : "equal") << " levels from "
             << levels.front() << " to " << levels.back() << ", " << bins << " bins, n=" << n;
        check_range_histogram<Sample, Counter>(levels, samples_around<Sample>(levels, n, rng), what.str());
        if (::testing::Test::HasFatalFailure()) return;
      }
}

class histogram_range_api : public gpu_test {};

TEST_F(histogram_range_api, matches_cpu_reference_and_cub) {
  check_range_histograms<std::int32_t, unsigned>(-5000, 3, 1);
  check_range_histograms<float, unsigned long long>(-1.5f, 0.00390625f, 2);
  // Levels from below the type's smallest value (and, for many bins, past its largest).
  check_range_histograms<std::uint16_t, unsigned long long>(-5, 7, 3);
  check_range_histograms<std::uint8_t, unsigned>(-1, 1, 4);
  check_range_histograms<std::uint32_t, unsigned>(100, 5, 5);
  check_range_histograms<double, unsigned long long>(-2.0, 0.001, 6);
}

// --- range counts from the prefix sum ------------------------------------------------------------------

/// Builds the prefix of a random histogram with histogram_prefix, checks it, then answers random valid
/// queries and some invalid ones (which must give 0) with range_counts, each against a direct count.
/// uint32 counters can total past 2^32 here: a prefix wraps, and differences of wrapped prefixes
/// still equal the direct count in the counter type.
template <class Counter>
void check_range_counts(int bins, std::int64_t num_queries, std::uint64_t salt) {
  auto rng = make_rng(salt);
  std::vector<Counter> hist(static_cast<std::size_t>(bins));
  const std::uint64_t most = sizeof(Counter) == 4 ? (1u << 20) : (std::uint64_t{1} << 40);
  for (Counter& c : hist) c = static_cast<Counter>(rng() % 8 == 0 ? 0 : rng() % most);
  const std::string what = std::to_string(sizeof(Counter) * 8) + "-bit counters, " + std::to_string(bins) + " bins";

  const cuda_stream stream;
  const auto d_hist = to_device(hist, stream);
  device_buffer<Counter> d_prefix(static_cast<std::size_t>(bins) + 1, stream);
  d_prefix.fill_bytes(poison_byte);
  std::size_t temp_bytes = 0;
  histogram_prefix(nullptr, temp_bytes, d_hist.data(), bins, d_prefix.data(), stream.get());
  device_buffer<std::byte> d_temp(temp_bytes, stream);
  histogram_prefix(d_temp.data(), temp_bytes, d_hist.data(), bins, d_prefix.data(), stream.get());
  std::vector<Counter> prefix{0};
  for (const Counter c : hist) prefix.push_back(static_cast<Counter>(prefix.back() + c));
  expect_counts(prefix, "the CPU prefix", to_host(d_prefix), "histogram_prefix", what);

  std::vector<int> queries;
  for (std::int64_t q = 0; q < num_queries; ++q) {
    int a = static_cast<int>(rng() % bins), b = static_cast<int>(rng() % bins);
    if (a > b) std::swap(a, b);
    queries.insert(queries.end(), {a, b});
  }
  constexpr int int_max = std::numeric_limits<int>::max(), int_min = std::numeric_limits<int>::min();
  for (const auto& [a, b] : {std::pair<int, int>{-1, 0}, {0, bins}, {bins, bins}, {-1, -1}, {1, 0}, {int_min, int_max},
                             {bins - 1, bins - 2}, {0, int_max}})
    queries.insert(queries.end(), {a, b});
  const auto k = static_cast<std::int64_t>(queries.size() / 2);

  const auto d_queries = to_device(queries, stream);
  device_buffer<Counter> d_counts(static_cast<std::size_t>(k), stream);
  d_counts.fill_bytes(poison_byte);
  range_counts(d_prefix.data(), bins, d_queries.data(), k, d_counts.data(), stream.get());
  const auto got = to_host(d_counts);
  for (std::int64_t q = 0; q < k; ++q) {
    const int a = queries[2 * q], b = queries[2 * q + 1];
    Counter direct = 0;
    if (0 <= a && a <= b && b < bins)
      for (int i = a; i <= b; ++i) direct = static_cast<Counter>(direct + hist[i]);
    ASSERT_EQ(got[q], direct) << what << ": query " << q << " (" << a << ", " << b << ")";
  }
}

class histogram_range_counts : public gpu_test {};

TEST_F(histogram_range_counts, match_direct_counts) {
  for (const int bins : {1, 7, 4096, 65536}) {
    check_range_counts<unsigned>(bins, 1000, 10 + bins);
    check_range_counts<unsigned long long>(bins, 1000, 20 + bins);
  }
  // More queries than range_counts launches threads for (4096 blocks of 256): the grid-stride loop.
  check_range_counts<unsigned>(7, std::min<std::int64_t>(max_test_size(), (std::int64_t{1} << 21) + 3), 30);
}

// The run-time-typed entry point the command uses, against its CPU twin.
TEST_F(histogram_range_counts, typed_gpu_matches_typed_cpu) {
  const int bins = 300;
  auto rng = make_rng(40);
  std::vector<int> queries;
  for (int q = 0; q < 500; ++q) {
    int a = static_cast<int>(rng() % bins), b = static_cast<int>(rng() % bins);
    queries.insert(queries.end(), {std::min(a, b), std::max(a, b)});
  }
  const cuda_stream stream;
  const auto d_queries = to_device(queries, stream);
  for (const dtype counter : counter_types) {
    std::vector<std::uint64_t> counts(static_cast<std::size_t>(bins));
    for (std::uint64_t& c : counts) c = rng() % 100000;
    const std::vector<std::byte> hist = narrow(counter, counts);
    const auto d_hist = to_device(hist, stream);
    device_buffer<std::byte> d_counts(queries.size() / 2 * io::dtype_size(counter), stream);
    d_counts.fill_bytes(poison_byte);
    typed::range_counts_gpu(counter, d_hist.data(), bins, d_queries.data(), static_cast<std::int64_t>(queries.size() / 2),
                            d_counts.data(), stream);
    EXPECT_EQ(widen(counter, to_host(d_counts)), typed::range_counts_cpu(counter, hist.data(), bins, queries))
        << io::dtype_name(counter);
  }
}

// The range histogram past 2^32 samples, so that the prefix and the whole range pass 32-bit counters:
// bins between levels, their prefix and O(1) range queries, each against the count by hand; in the GPU
// bundle's run of disabled tests.
TEST_F(histogram_range_counts, DISABLED_past_2_pow_32_samples) {
  const std::int64_t n = (std::int64_t{1} << 32) + 4099;
  auto rng = make_rng(2032);
  std::vector<std::uint8_t> xs(static_cast<std::size_t>(n));
  for (std::uint8_t& x : xs) x = static_cast<std::uint8_t>(rng());
  const auto by_hand = exact_integer_counts(xs, 0, 256, 256);
  const int bins = 256;
  const cuda_stream stream;
  const auto d_samples = to_device(xs, stream);
  auto no_rng = make_rng(0);
  const auto d_levels = to_device(make_levels<std::uint8_t>(0, 1, bins, false, no_rng), stream);
  device_buffer<unsigned long long> d_hist(bins, stream);
  d_hist.fill_bytes(poison_byte);
  histogram_range(d_samples.data(), n, d_hist.data(), bins, d_levels.data(), stream.get());
  const auto hist = to_host(d_hist);
  expect_counts(by_hand, "hand", std::vector<std::uint64_t>(hist.begin(), hist.end()), "histogram_range",
                "uint8 samples past 2^32, unit levels");

  device_buffer<unsigned long long> d_prefix(bins + 1, stream);
  d_prefix.fill_bytes(poison_byte);
  std::size_t temp_bytes = 0;
  histogram_prefix(nullptr, temp_bytes, d_hist.data(), bins, d_prefix.data(), stream.get());
  device_buffer<std::byte> d_temp(temp_bytes, stream);
  histogram_prefix(d_temp.data(), temp_bytes, d_hist.data(), bins, d_prefix.data(), stream.get());
  std::vector<int> queries{0, bins - 1};  // every sample: past 2^32
  for (int q = 0; q < 100; ++q) {
    int a = static_cast<int>(rng() % bins), b = static_cast<int>(rng() % bins);
    queries.insert(queries.end(), {std::min(a, b), std::max(a, b)});
  }
  const auto k = static_cast<std::int64_t>(queries.size() / 2);
  const auto d_queries = to_device(queries, stream);
  device_buffer<unsigned long long> d_counts(static_cast<std::size_t>(k), stream);
  d_counts.fill_bytes(poison_byte);
  range_counts(d_prefix.data(), bins, d_queries.data(), k, d_counts.data(), stream.get());
  const auto got = to_host(d_counts);
  EXPECT_EQ(got[0], static_cast<unsigned long long>(n));
  for (std::int64_t q = 0; q < k; ++q) {
    std::uint64_t direct = 0;
    for (int i = queries[2 * q]; i <= queries[2 * q + 1]; ++i) direct += by_hand[static_cast<std::size_t>(i)];
    EXPECT_EQ(got[static_cast<std::size_t>(q)], direct) << "query " << q;
  }
}

// --- arguments ---------------------------------------------------------------------------------------------

// No gpu_test fixture: these run without a GPU too. histogram_even makes (and so validates) the bin map
// while evaluating the arguments of histogram::detail::run, histogram_range checks its bin count before
// calling it, and run checks the sample count and the arrays before its first CUDA call. The arrays are
// real (and never touched) except where a null one is the point, and each refusal must be for the
// reason checked: a null array is refused too.
TEST(histogram_arguments, rejected_before_any_cuda_call) {
  constexpr float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const float floats[1] = {};
  const std::uint32_t uints[1] = {};
  const std::int32_t ints[1] = {};
  const std::int64_t levels[2] = {};
  unsigned counters[4] = {};
  for (const int bins : {0, -1, 65537}) {
    SCOPED_TRACE(std::to_string(bins) + " bins");
    expect_refused("number of bins", [&] { histogram_even(floats, 10, counters, bins, 0.f, 1.f); });
    expect_refused("number of bins", [&] { histogram_even(uints, 10, counters, bins, 0, 256); });
    expect_refused("number of bins", [&] { histogram_range(ints, 10, counters, bins, levels); });
  }
  for (const std::pair<float, float> range : {std::pair<float, float>{1.f, 1.f}, {2.f, 1.f}, {0.f, inf}, {-inf, 0.f},
                                               {nan, 1.f}, {0.f, nan}, {-inf, inf}}) {
    SCOPED_TRACE("[" + std::to_string(range.first) + ", " + std::to_string(range.second) + ")");
    expect_refused("histogram range", [&] { histogram_even(floats, 10, counters, 4, range.first, range.second); });
  }
  expect_refused("lower < upper", [&] { histogram_even(uints, 10, counters, 4, 5, 5); });
  expect_refused("lower < upper", [&] { histogram_even(uints, 10, counters, 4, 6, 5); });
  expect_refused("overflows 64 bits", [&] {
    histogram_even(uints, 10, counters, 2, std::numeric_limits<std::int64_t>::min(),
                   std::numeric_limits<std::int64_t>::max());
  });
  expect_refused("negative item count", [&] { histogram_even(floats, -1, counters, 4, 0.f, 1.f); });
  // Null arrays, with something to count: refused before the histogram is cleared.
  const std::uint32_t* no_samples = nullptr;
  unsigned* no_counters = nullptr;
  const std::int64_t* no_levels = nullptr;
  expect_refused("d_samples", [&] { histogram_even(no_samples, 10, counters, 4, 0, 256); });
  expect_refused("d_histogram", [&] { histogram_even(uints, 1, no_counters, 4, 0, 256); });
  expect_refused("d_levels", [&] { histogram_range(ints, 1, counters, 4, no_levels); });
  const int queries[2] = {};
  expect_refused("d_prefix", [&] { range_counts(static_cast<const unsigned*>(nullptr), 4, queries, 1, counters); });
  expect_refused("d_queries", [&] { range_counts(counters, 4, static_cast<const int*>(nullptr), 1, counters); });
  untouched_storage storage;
  expect_refused("d_prefix", [&] { histogram_prefix(storage.get(), storage.bytes, counters, 4, no_counters); });
  expect_refused("d_histogram", [&] {
    histogram_prefix(storage.get(), storage.bytes, static_cast<const unsigned*>(nullptr), 4, counters);
  });
}

}  // namespace
}  // namespace lookback::test
