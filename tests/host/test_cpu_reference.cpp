// Tests of the CPU references and the result comparison. Every GPU test and `lookback --verify` trusts
// these two, so their expected values here are computed by hand, never by another implementation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "io/dtype.hpp"
#include "support/run_seed.hpp"
#include "typed/compare.hpp"
#include "typed/reference.hpp"
#include "typed/select_predicate.hpp"
#include "typed/typed_ops.hpp"

#include <lookback/primitives/cpu/deterministic_scan.hpp>
#include <lookback/primitives/cpu/reduce.hpp>
#include <lookback/primitives/cpu/scan.hpp>
#include <lookback/primitives/operators.cuh>

namespace {

// Signed sums past the type's range wrap, as on the GPU. Evaluated by the compiler: an overflow that
// were undefined behaviour would not compile.
constexpr std::int32_t past_max[] = {std::numeric_limits<std::int32_t>::max(), 1, 1};
static_assert(lookback::cpu::reduce<std::int32_t>(past_max, 3, lookback::sum{}, std::int32_t{0}) ==
              std::numeric_limits<std::int32_t>::min() + 1);
constexpr std::int64_t wrapped_scan_last() {
  std::int64_t out[2] = {};
  const std::int64_t in[2] = {std::numeric_limits<std::int64_t>::min(), -1};
  lookback::cpu::inclusive_scan<std::int64_t>(in, out, 2, lookback::sum{});
  std::int64_t ex[2] = {};
  lookback::cpu::exclusive_scan<std::int64_t>(in, ex, 2, std::int64_t{-1}, lookback::sum{});
  return out[1] == ex[1] ? out[1] : 0;  // both min - 1
}
static_assert(wrapped_scan_last() == std::numeric_limits<std::int64_t>::max());

TEST(CpuReference, DeterministicSignedSumsWrap) {
  const std::vector<std::int32_t> in{std::numeric_limits<std::int32_t>::max(), 1};
  EXPECT_EQ(*lookback::cpu::deterministic_scan<std::int32_t>(in.data(), nullptr, 2, lookback::sum{}, std::int32_t{0}, true),
            std::numeric_limits<std::int32_t>::min());
}

using lookback::io::dtype;
using lookback::io::dtype_of;
using lookback::typed::op_kind;
using lookback::typed::scalar;
using lookback::typed::scan_spec;

// --- helpers ------------------------------------------------------------------

template <class T>
scalar scalar_of(T value) {
  return lookback::typed::load_scalar(dtype_of<T>(), &value);
}

// The scalar's value as T, after checking that it really holds a T: a scalar of the wrong dtype would
// otherwise be reinterpreted silently.
template <class T>
T value_of(const scalar& s) {
  EXPECT_EQ(s.type, dtype_of<T>());
  T value;
  std::memcpy(&value, s.bytes.data(), sizeof(T));
  return value;
}

template <class T>
std::vector<T> values(std::initializer_list<double> list) {
  std::vector<T> out;
  for (double v : list) out.push_back(static_cast<T>(v));
  return out;
}

template <class T>
T reduce(op_kind op, const std::vector<T>& in) {
  T out{};
  lookback::typed::reduce_cpu(dtype_of<T>(), op, in.data(), &out, static_cast<std::int64_t>(in.size()));
  return out;
}

// C++17 lacks std::type_identity; keeps `init` from taking part in deducing T, so a plain value converts.
template <class T>
using no_deduce = typename std::common_type<T>::type;

template <class T>
std::vector<T> scan(op_kind op, bool inclusive, const std::vector<T>& in,
                    std::optional<no_deduce<T>> init = std::nullopt) {
  scan_spec spec;
  spec.type = dtype_of<T>();
  spec.op = op;
  spec.inclusive = inclusive;
  spec.init = init ? scalar_of(*init) : lookback::typed::identity(spec.type, op);
  std::vector<T> out(in.size());
  lookback::typed::scan_cpu(spec, in.data(), out.data(), static_cast<std::int64_t>(in.size()));
  return out;
}

template <class T>
scan_spec spec_for(op_kind op, bool inclusive, T init = T(0)) {
  return scan_spec{dtype_of<T>(), op, inclusive, scalar_of(init)};
}

template <class T>
constexpr T lowest_or_minus_inf() {
  return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                              : std::numeric_limits<T>::lowest();
}

template <class T>
constexpr T max_or_inf() {
  return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
}

// --- every dtype ----------------------------------------------------------------

template <class T>
class CpuReferenceEveryDtype : public ::testing::Test {};
using numeric_types = ::testing::Types<std::int32_t, std::uint32_t, std::int64_t, std::uint64_t, float, double>;
TYPED_TEST_SUITE(CpuReferenceEveryDtype, numeric_types);

TYPED_TEST(CpuReferenceEveryDtype, Reduce) {
  using T = TypeParam;
  const auto in = values<T>({3, 1, 4, 1, 5});
  EXPECT_EQ(reduce(op_kind::sum, in), T(14));
  EXPECT_EQ(reduce(op_kind::min, in), T(1));
  EXPECT_EQ(reduce(op_kind::max, in), T(5));
}

TYPED_TEST(CpuReferenceEveryDtype, ExclusiveScanStartsFromTheIdentity) {
  using T = TypeParam;
  const auto in = values<T>({3, 1, 4, 1, 5});
  EXPECT_EQ(scan(op_kind::sum, false, in), values<T>({0, 3, 4, 8, 9}));
  EXPECT_EQ(scan(op_kind::min, false, in), (std::vector<T>{max_or_inf<T>(), 3, 1, 1, 1}));
  EXPECT_EQ(scan(op_kind::max, false, in), (std::vector<T>{lowest_or_minus_inf<T>(), 3, 3, 4, 4}));
}

TYPED_TEST(CpuReferenceEveryDtype, ExclusiveScanWithInit) {
  using T = TypeParam;
  const auto in = values<T>({3, 1, 4, 1, 5});
  EXPECT_EQ(scan(op_kind::sum, false, in, T(10)), values<T>({10, 13, 14, 18, 19}));
  EXPECT_EQ(scan(op_kind::min, false, in, T(2)), values<T>({2, 2, 1, 1, 1}));
  EXPECT_EQ(scan(op_kind::max, false, in, T(2)), values<T>({2, 3, 3, 4, 4}));
}

TYPED_TEST(CpuReferenceEveryDtype, InclusiveScan) {
  using T = TypeParam;
  const auto in = values<T>({3, 1, 4, 1, 5});
  EXPECT_EQ(scan(op_kind::sum, true, in), values<T>({3, 4, 8, 9, 14}));
  EXPECT_EQ(scan(op_kind::min, true, in), values<T>({3, 1, 1, 1, 1}));
  EXPECT_EQ(scan(op_kind::max, true, in), values<T>({3, 3, 4, 4, 5}));
}

TYPED_TEST(CpuReferenceEveryDtype, EmptyInput) {
  using T = TypeParam;
  const std::vector<T> none;
  EXPECT_EQ(reduce(op_kind::sum, none), T(0));
  EXPECT_EQ(reduce(op_kind::min, none), max_or_inf<T>());
  EXPECT_EQ(reduce(op_kind::max, none), lowest_or_minus_inf<T>());

  // n = 0 must not touch the output at all, not even its first element.
  const T sentinel = T(77);
  for (const bool inclusive : {false, true}) {
    T out = sentinel;
    lookback::typed::scan_cpu(spec_for<T>(op_kind::sum, inclusive, T(5)), none.data(), &out, 0);
    EXPECT_EQ(out, sentinel) << (inclusive ? "inclusive" : "exclusive");
  }
}

TYPED_TEST(CpuReferenceEveryDtype, SingleElement) {
  using T = TypeParam;
  const auto one = values<T>({7});
  for (const op_kind op : {op_kind::sum, op_kind::min, op_kind::max}) {
    SCOPED_TRACE(std::string(lookback::typed::op_name(op)));
    EXPECT_EQ(reduce(op, one), T(7));
    EXPECT_EQ(scan(op, true, one), values<T>({7}));
    EXPECT_EQ(scan(op, false, one, T(9)), values<T>({9}));
  }
}

TYPED_TEST(CpuReferenceEveryDtype, Identities) {
  using T = TypeParam;
  constexpr dtype type = dtype_of<T>();
  EXPECT_EQ(value_of<T>(lookback::typed::identity(type, op_kind::sum)), T(0));
  EXPECT_EQ(value_of<T>(lookback::typed::identity(type, op_kind::min)), max_or_inf<T>());
  EXPECT_EQ(value_of<T>(lookback::typed::identity(type, op_kind::max)), lowest_or_minus_inf<T>());
  if constexpr (std::is_floating_point_v<T>) {
    // Spelled out once more: a finite max/lowest would wrongly win against +-inf inputs.
    EXPECT_TRUE(std::isinf(value_of<T>(lookback::typed::identity(type, op_kind::min))));
    EXPECT_EQ(reduce(op_kind::min, std::vector<T>{std::numeric_limits<T>::infinity()}),
              std::numeric_limits<T>::infinity());
    // The kernels start a sum from -0.0, which leaves every value as it is, -0.0 too; the identity a
    // user sees (an empty sum, a default initial value) stays +0.0.
    EXPECT_TRUE(std::signbit(lookback::neutral_of<T>(lookback::sum{})));
    EXPECT_FALSE(std::signbit(lookback::identity_of<T>(lookback::sum{})));
    EXPECT_TRUE(std::signbit(lookback::neutral_of<T>(lookback::sum{}) + -T(0)));
    EXPECT_FALSE(std::signbit(lookback::identity_of<T>(lookback::sum{}) + -T(0)));
  }
  EXPECT_EQ(lookback::neutral_of<T>(lookback::minimum{}), max_or_inf<T>());
  EXPECT_EQ(lookback::neutral_of<T>(lookback::maximum{}), lowest_or_minus_inf<T>());
  EXPECT_EQ(lookback::neutral_of<T>(lookback::sum{}), T(0));
}

TYPED_TEST(CpuReferenceEveryDtype, ParseAndFormatScalar) {
  using T = TypeParam;
  constexpr dtype type = dtype_of<T>();
  const auto parsed = lookback::typed::parse_scalar(type, "42");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(value_of<T>(*parsed), T(42));
  EXPECT_EQ(lookback::typed::format_scalar(*parsed), "42");

  for (const char* bad : {"abc", "", "12x", "4 2", "-"}) EXPECT_FALSE(lookback::typed::parse_scalar(type, bad)) << bad;

  const auto biggest = std::numeric_limits<T>::max();
  const auto round_trip = lookback::typed::parse_scalar(type, lookback::typed::format_scalar(scalar_of(biggest)));
  ASSERT_TRUE(round_trip.has_value());
  EXPECT_EQ(value_of<T>(*round_trip), biggest);
}

// --- integers -------------------------------------------------------------------

TEST(CpuReferenceIntegers, SignedSumsWrapAsOnTheGpu) {
  constexpr std::int32_t max32 = std::numeric_limits<std::int32_t>::max();
  constexpr std::int32_t min32 = std::numeric_limits<std::int32_t>::min();
  EXPECT_EQ(reduce(op_kind::sum, std::vector<std::int32_t>{max32, 1}), min32);
  EXPECT_EQ(scan(op_kind::sum, true, std::vector<std::int32_t>{max32, 1, 1}),
            (std::vector<std::int32_t>{max32, min32, min32 + 1}));
  EXPECT_EQ(scan(op_kind::sum, false, std::vector<std::int32_t>{1, 1, 0}, max32),
            (std::vector<std::int32_t>{max32, min32, min32 + 1}));
  EXPECT_EQ(scan(op_kind::sum, true, std::vector<std::int32_t>{min32, -1}), (std::vector<std::int32_t>{min32, max32}));

  constexpr std::int64_t max64 = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t min64 = std::numeric_limits<std::int64_t>::min();
  EXPECT_EQ(scan(op_kind::sum, true, std::vector<std::int64_t>{max64, 1}), (std::vector<std::int64_t>{max64, min64}));
}

TEST(CpuReferenceIntegers, UnsignedSumsWrap) {
  EXPECT_EQ(reduce(op_kind::sum, std::vector<std::uint32_t>{0xffffffffu, 2}), 1u);
  EXPECT_EQ(scan(op_kind::sum, true, std::vector<std::uint64_t>{~std::uint64_t{0}, 1}),
            (std::vector<std::uint64_t>{~std::uint64_t{0}, 0}));
}

TEST(CpuReferenceIntegers, NegativeValues) {
  const std::vector<std::int64_t> in{-5, 7, -2};
  EXPECT_EQ(reduce(op_kind::sum, in), 0);
  EXPECT_EQ(reduce(op_kind::min, in), -5);
  EXPECT_EQ(reduce(op_kind::max, in), 7);
  EXPECT_EQ(scan(op_kind::min, true, in), (std::vector<std::int64_t>{-5, -5, -5}));
  EXPECT_EQ(scan(op_kind::sum, false, in, std::int64_t{-1}), (std::vector<std::int64_t>{-1, -6, 1}));
}

TEST(CpuReferenceIntegers, ParseScalarRange) {
  using lookback::typed::parse_scalar;
  EXPECT_FALSE(parse_scalar(dtype::int32, "1.5"));
  EXPECT_FALSE(parse_scalar(dtype::uint64, "1.5"));
  EXPECT_FALSE(parse_scalar(dtype::int32, "300000000000"));
  EXPECT_FALSE(parse_scalar(dtype::int32, "2147483648"));
  EXPECT_FALSE(parse_scalar(dtype::uint32, "4294967296"));
  EXPECT_FALSE(parse_scalar(dtype::uint32, "-1"));
  EXPECT_FALSE(parse_scalar(dtype::int32, "0x10"));
  EXPECT_FALSE(parse_scalar(dtype::int64, "9223372036854775808"));

  EXPECT_EQ(value_of<std::int32_t>(*parse_scalar(dtype::int32, "-2147483648")), std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(value_of<std::int64_t>(*parse_scalar(dtype::int64, "300000000000")), 300000000000);
  EXPECT_EQ(value_of<std::uint64_t>(*parse_scalar(dtype::uint64, "18446744073709551615")),
            std::numeric_limits<std::uint64_t>::max());
}

// A float value the type would take as zero or infinity is refused, as is leading white space; the
// smallest subnormal and the named values are taken.
TEST(CpuReferenceFloats, ParseScalarRange) {
  using lookback::typed::parse_scalar;
  for (const char* bad : {"1e-50", "-1e-46", "1e39", " 5", "\t1"})
    EXPECT_FALSE(parse_scalar(dtype::float32, bad)) << bad;
  for (const char* bad : {"1e-400", "1e400", " 0.5"}) EXPECT_FALSE(parse_scalar(dtype::float64, bad)) << bad;
  EXPECT_EQ(value_of<float>(*parse_scalar(dtype::float32, "1e-45")), std::numeric_limits<float>::denorm_min());
  EXPECT_EQ(value_of<float>(*parse_scalar(dtype::float32, "-0")), 0.0f);
  EXPECT_TRUE(std::signbit(value_of<float>(*parse_scalar(dtype::float32, "-0"))));
  EXPECT_TRUE(std::isinf(value_of<double>(*parse_scalar(dtype::float64, "-inf"))));
  EXPECT_TRUE(std::isnan(value_of<double>(*parse_scalar(dtype::float64, "nan"))));
}

TEST(CpuReferenceIntegers, FormatScalarExtremes) {
  using lookback::typed::format_scalar;
  EXPECT_EQ(format_scalar(scalar_of(std::int32_t{-7})), "-7");
  EXPECT_EQ(format_scalar(scalar_of(std::numeric_limits<std::int64_t>::min())), "-9223372036854775808");
  EXPECT_EQ(format_scalar(scalar_of(std::numeric_limits<std::uint64_t>::max())), "18446744073709551615");
  EXPECT_EQ(format_scalar(scalar_of(std::numeric_limits<std::uint32_t>::max())), "4294967295");
}

// --- floating point -------------------------------------------------------------

TEST(CpuReferenceFloats, SumsRunInTheElementType) {
  // In double the first two would sum to 1e8 + 1 and the result would be 1.
  EXPECT_EQ(reduce(op_kind::sum, std::vector<float>{1e8f, 1.0f, -1e8f}), 0.0f);
  EXPECT_EQ(reduce(op_kind::sum, std::vector<double>{1e17, 1.0, -1e17}), 0.0);
  EXPECT_EQ(scan(op_kind::sum, true, std::vector<float>{1e8f, 1.0f, -1e8f}), (std::vector<float>{1e8f, 1e8f, 0.0f}));
}

TEST(CpuReferenceFloats, NegativeAndFractionalValues) {
  const std::vector<double> in{0.5, -1.25, 2.0};
  EXPECT_EQ(reduce(op_kind::sum, in), 1.25);
  EXPECT_EQ(reduce(op_kind::min, in), -1.25);
  EXPECT_EQ(scan(op_kind::max, false, in, -3.0), (std::vector<double>{-3.0, 0.5, 0.5}));
  EXPECT_EQ(scan(op_kind::sum, false, std::vector<float>{0.5f, -1.25f, 2.0f}, 0.25f),
            (std::vector<float>{0.25f, 0.75f, -0.5f}));
}

TEST(CpuReferenceFloats, ParseScalar) {
  using lookback::typed::parse_scalar;
  EXPECT_EQ(value_of<double>(*parse_scalar(dtype::float64, "1.5")), 1.5);
  EXPECT_EQ(value_of<double>(*parse_scalar(dtype::float64, "-2.5e-3")), -2.5e-3);
  EXPECT_EQ(value_of<float>(*parse_scalar(dtype::float32, "0.1")), 0.1f);
  EXPECT_EQ(value_of<double>(*parse_scalar(dtype::float64, "-inf")), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(value_of<float>(*parse_scalar(dtype::float32, "nan"))));
  EXPECT_FALSE(parse_scalar(dtype::float32, "1.5.2"));
  EXPECT_FALSE(parse_scalar(dtype::float64, "1e"));
}

// parse_scalar promises nullopt for text "out of the type's range"; a finite literal that only fits as
// infinity is out of range, unlike "inf" itself.
TEST(CpuReferenceFloats, ParseScalarRejectsFiniteTextThatOverflows) {
  using lookback::typed::parse_scalar;
  EXPECT_FALSE(parse_scalar(dtype::float32, "1e39"));
  EXPECT_FALSE(parse_scalar(dtype::float64, "1e400"));
  EXPECT_TRUE(parse_scalar(dtype::float32, "3e38"));
}

TEST(CpuReferenceFloats, FormatScalarRoundTrips) {
  using lookback::typed::format_scalar;
  using lookback::typed::parse_scalar;
  EXPECT_EQ(format_scalar(scalar_of(1.5)), "1.5");
  EXPECT_EQ(format_scalar(scalar_of(0.1)), "0.10000000000000001");
  EXPECT_EQ(format_scalar(scalar_of(0.1f)), "0.100000001");
  EXPECT_EQ(format_scalar(scalar_of(std::numeric_limits<double>::infinity())), "inf");

  // Enough digits that the text means exactly the stored value.
  const double third = 1.0 / 3.0;
  EXPECT_EQ(value_of<double>(*parse_scalar(dtype::float64, format_scalar(scalar_of(third)))), third);
  const float tenth = 0.1f;
  EXPECT_EQ(value_of<float>(*parse_scalar(dtype::float32, format_scalar(scalar_of(tenth)))), tenth);
}

// --- operators --------------------------------------------------------------------

TEST(CpuReferenceOps, ParseOp) {
  using lookback::typed::parse_op;
  EXPECT_EQ(parse_op("sum"), op_kind::sum);
  EXPECT_EQ(parse_op("min"), op_kind::min);
  EXPECT_EQ(parse_op("max"), op_kind::max);
  for (const char* bad : {"", "Sum", "MAX", "mean", "sum ", "+"}) EXPECT_FALSE(parse_op(bad)) << '"' << bad << '"';
  for (const op_kind op : {op_kind::sum, op_kind::min, op_kind::max})
    EXPECT_EQ(parse_op(lookback::typed::op_name(op)), op);
}

// --- comparison -------------------------------------------------------------------

TEST(CompareTolerance, SumTolerance) {
  using lookback::typed::sum_tolerance;
  EXPECT_EQ(sum_tolerance<std::int32_t>(1e9, 1000), 0.0);
  EXPECT_EQ(sum_tolerance<std::uint64_t>(1e9, 1000), 0.0);
  // eps * mass * (32 + sqrt(terms) / 8), with sqrt(terms) / 8 chosen whole.
  EXPECT_EQ(sum_tolerance<double>(1.0, 64), 33.0 * std::numeric_limits<double>::epsilon());
  EXPECT_EQ(sum_tolerance<float>(2.0, 256), 68.0 * std::numeric_limits<float>::epsilon());
  EXPECT_LT(sum_tolerance<double>(1.0, 64), sum_tolerance<double>(2.0, 64));
  EXPECT_LT(sum_tolerance<double>(1.0, 64), sum_tolerance<double>(1.0, 1 << 20));
  EXPECT_GT(sum_tolerance<float>(1.0, 64), sum_tolerance<double>(1.0, 64));
}

TEST(CompareTolerance, WholeNumbersSumExactly) {
  using lookback::typed::sum_allowance;
  using lookback::typed::sum_tolerance;
  sum_allowance<float> whole;
  for (const double t : {3.0, -64.0, 17.0, 0.0, -5.0}) whole.add(t);
  EXPECT_EQ(whole.tolerance(5), 0.0);
  whole.add(0.5);  // one fraction, and rounding may differ between orders again
  EXPECT_EQ(whole.tolerance(6), sum_tolerance<float>(89.5, 6));

  // The positive terms together bound every partial sum any grouping forms: 2^24 + 1 is no float.
  sum_allowance<float> wide_f;
  sum_allowance<double> wide_d;
  for (const double t : {16777216.0, 1.0}) {
    wide_f.add(t);
    wide_d.add(t);
  }
  EXPECT_GT(wide_f.tolerance(2), 0.0);
  EXPECT_EQ(wide_d.tolerance(2), 0.0);
  // Not the total, nor any run of neighbours: here each run stays within 2^23 + 3, but a reduction's
  // thread may add the three 2^23 + 1 together, which rounds.
  sum_allowance<float> scattered;
  for (const double t : {8388609.0, -8388608.0, 8388609.0, -8388608.0, 8388609.0}) scattered.add(t);
  EXPECT_GT(scattered.tolerance(5), 0.0);
  sum_allowance<float> cancelling;
  for (const double t : {1.0, 16777216.0, -16777216.0}) cancelling.add(t);
  EXPECT_GT(cancelling.tolerance(3), 0.0);
  sum_allowance<float> at_the_bound;
  for (const double t : {16777216.0, -16777216.0}) at_the_bound.add(t);
  EXPECT_EQ(at_the_bound.tolerance(2), 0.0);
  sum_allowance<float> infinite;
  infinite.add(std::numeric_limits<double>::infinity());
  EXPECT_GT(infinite.tolerance(1), 0.0);
}

TEST(CompareTolerance, ValuesMatch) {
  using lookback::typed::values_match;
  EXPECT_TRUE(values_match(std::int32_t{5}, std::int32_t{5}, 0.0));
  EXPECT_FALSE(values_match(std::int64_t{5}, std::int64_t{6}, 100.0));  // integers ignore any tolerance
  EXPECT_TRUE(values_match(1.0, 1.0 + 1e-12, 1e-9));
  EXPECT_FALSE(values_match(1.0, 1.0 + 1e-6, 1e-9));
  EXPECT_TRUE(values_match(1.0, 1.0f, 0.0));
  EXPECT_FALSE(values_match(1.0, std::nextafter(1.0f, 2.0f), 0.0));

  const double nan = std::nan("");
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(values_match(nan, nan, 0.0));
  EXPECT_TRUE(values_match(nan, std::nanf(""), 0.0));
  EXPECT_FALSE(values_match(nan, 1.0, inf));
  EXPECT_FALSE(values_match(1.0, nan, inf));
  EXPECT_TRUE(values_match(inf, inf, 0.0));
  EXPECT_FALSE(values_match(inf, -inf, inf));
  EXPECT_FALSE(values_match(inf, 1e308, inf));  // no tolerance makes a finite value equal infinity
  EXPECT_FALSE(values_match(1e308, inf, 1e300));
}

template <class T>
std::optional<lookback::typed::mismatch> scan_mismatch(const scan_spec& spec, const std::vector<T>& in,
                                                       const std::vector<T>& expected, const std::vector<T>& actual) {
  return lookback::typed::first_scan_mismatch(spec, in.data(), expected.data(), actual.data(),
                                              static_cast<std::int64_t>(in.size()));
}

template <class T>
std::optional<lookback::typed::mismatch> reduce_mismatch(op_kind op, const std::vector<T>& in, T expected, T actual) {
  return lookback::typed::reduce_mismatch(dtype_of<T>(), op, in.data(), static_cast<std::int64_t>(in.size()),
                                          &expected, &actual);
}

TEST(CompareTolerance, ADroppedTermOfWholeNumbersShows) {
  // With fractions in [0, 1) the allowance of 4096 float terms exceeds a small term, so only whole
  // numbers let a float sum's check see it missing.
  auto rng = lookback::test::make_rng(4096);
  std::uniform_int_distribution<int> dist(-64, 64);
  std::vector<float> in(4096);
  for (float& x : in) x = static_cast<float>(dist(rng));
  in[1000] = 1.0f;
  std::vector<float> want(in.size());
  std::vector<float> dropped(in.size());
  float running = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    running += in[i];
    want[i] = running;
    dropped[i] = i >= 1000 ? running - 1.0f : running;
  }
  EXPECT_TRUE(reduce_mismatch(op_kind::sum, in, want.back(), dropped.back()));
  const auto m = scan_mismatch(spec_for<float>(op_kind::sum, true), in, want, dropped);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->index, 1000);
  EXPECT_FALSE(scan_mismatch(spec_for<float>(op_kind::sum, true), in, want, want));
}

TEST(CompareScan, IdenticalOutputsMatch) {
  const std::vector<std::int32_t> in{3, 1, 4, 1, 5};
  const auto want = scan(op_kind::sum, true, in);
  EXPECT_FALSE(scan_mismatch(spec_for<std::int32_t>(op_kind::sum, true), in, want, want));
  EXPECT_FALSE(scan_mismatch(spec_for<std::int32_t>(op_kind::sum, true), std::vector<std::int32_t>{}, {}, {}));
}

TEST(CompareScan, ReportsTheFirstWrongElement) {
  const std::vector<std::int32_t> in{3, 1, 4, 1, 5};
  const std::vector<std::int32_t> want{3, 4, 8, 9, 14};
  const auto m = scan_mismatch(spec_for<std::int32_t>(op_kind::sum, true), in, want, {3, 4, 8, 10, 15});
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->index, 3);
  EXPECT_EQ(m->expected, "9");
  EXPECT_EQ(m->actual, "10");

  const auto first = scan_mismatch(spec_for<std::int32_t>(op_kind::sum, false, 10), in, {10, 13, 14, 18, 19},
                                   {0, 3, 4, 8, 9});
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->index, 0);
}

TEST(CompareScan, IntegersCompareExactlyEvenWhenHuge) {
  const std::vector<std::uint64_t> in{1ull << 62, 1ull << 62};
  const std::vector<std::uint64_t> want{1ull << 62, 1ull << 63};
  const auto m = scan_mismatch(spec_for<std::uint64_t>(op_kind::sum, true), in, want, {1ull << 62, (1ull << 63) + 1});
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->index, 1);
  EXPECT_EQ(m->expected, "9223372036854775808");
}

TEST(CompareScan, FloatSumsWithinToleranceMatch) {
  const std::vector<double> in{0.1, 0.2, 0.3, 0.4};
  const std::vector<double> want{0.1, 0.1 + 0.2, 0.1 + 0.2 + 0.3, 0.1 + 0.2 + 0.3 + 0.4};
  std::vector<double> reordered = want;
  for (double& v : reordered) v = std::nextafter(std::nextafter(v, 2.0), 2.0);  // a different adding order's error
  EXPECT_FALSE(scan_mismatch(spec_for<double>(op_kind::sum, true), in, want, reordered));

  std::vector<double> wrong = want;
  wrong[2] += 1e-6;
  const auto m = scan_mismatch(spec_for<double>(op_kind::sum, true), in, want, wrong);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->index, 2);
}

TEST(CompareScan, FloatMinMaxCompareExactly) {
  const std::vector<float> in{2.0f, 1.0f};
  const std::vector<float> want{2.0f, 1.0f};
  const auto m =
      scan_mismatch(spec_for<float>(op_kind::min, true), in, want, {2.0f, std::nextafter(1.0f, 2.0f)});
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->index, 1);
}

TEST(CompareScan, NanOnlyMatchesNan) {
  const float nan = std::nanf("");
  const std::vector<float> in{1.0f, nan, 1.0f};
  const std::vector<float> want{1.0f, nan, nan};
  EXPECT_FALSE(scan_mismatch(spec_for<float>(op_kind::sum, true), in, want, want));
  const auto m = scan_mismatch(spec_for<float>(op_kind::sum, true), in, want, {1.0f, nan, 2.0f});
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->index, 2);
  const auto reverse = scan_mismatch(spec_for<float>(op_kind::sum, true), in, {1.0f, 2.0f, 3.0f}, {1.0f, nan, 3.0f});
  ASSERT_TRUE(reverse.has_value());
  EXPECT_EQ(reverse->index, 1);
}

TEST(CompareReduce, IntegersExactFloatsWithinTolerance) {
  EXPECT_FALSE(reduce_mismatch<std::int32_t>(op_kind::sum, {1, 2, 3}, 6, 6));
  const auto m = reduce_mismatch<std::int32_t>(op_kind::sum, {1, 2, 3}, 6, 7);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->index, 0);
  EXPECT_EQ(m->expected, "6");
  EXPECT_EQ(m->actual, "7");

  const std::vector<double> in{0.1, 0.2, 0.3};
  const double want = (0.1 + 0.2) + 0.3;
  EXPECT_FALSE(reduce_mismatch(op_kind::sum, in, want, 0.1 + (0.2 + 0.3)));
  EXPECT_TRUE(reduce_mismatch(op_kind::sum, in, want, want + 1e-9));
  EXPECT_TRUE(reduce_mismatch(op_kind::max, in, 0.3, std::nextafter(0.3, 1.0)));
  EXPECT_FALSE(reduce_mismatch(op_kind::sum, std::vector<double>{}, 0.0, 0.0));
  // An empty input's result is compared too: an unwritten output must not pass.
  EXPECT_TRUE(reduce_mismatch(op_kind::sum, std::vector<double>{}, 0.0, -1.0));
  EXPECT_TRUE(reduce_mismatch<std::int32_t>(op_kind::min, {}, std::numeric_limits<std::int32_t>::max(), 0));
}

TEST(CompareTolerance, SumsCompareTheSignOfZero) {
  using lookback::typed::sums_match;
  EXPECT_TRUE(sums_match(-0.0, -0.0f, 0.0));
  EXPECT_FALSE(sums_match(-0.0, 0.0f, 0.0));
  EXPECT_FALSE(sums_match(0.0, -0.0, 1.0));  // both zero: no tolerance lets the sign go
  EXPECT_TRUE(sums_match(1e-300, -0.0, 1e-299));  // a cancelled sum near zero: the tolerance decides
  EXPECT_TRUE(sums_match(std::int32_t{0}, std::int32_t{0}, 0.0));
}

lookback::io::host_array array_of(const std::vector<float>& values) {
  lookback::io::host_array a{dtype::float32, {static_cast<std::int64_t>(values.size())},
                             std::vector<std::byte>(values.size() * sizeof(float))};
  std::memcpy(a.bytes.data(), values.data(), a.bytes.size());
  return a;
}

// An inclusive sum begins with its first item, so -0.0s lead with -0.0; an exclusive sum and a reduction
// add their initial value +0.0 (CUB's ExclusiveSum and Reduce): the CPU reference, the comparison with
// CUB and the streamed chunks' comparison all see a sign that went wrong.
TEST(CompareScan, FloatSumsKeepTheSignOfZero) {
  const std::vector<float> in{-0.0f, -0.0f, 2.0f, -2.0f};
  const std::vector<float> inclusive{-0.0f, -0.0f, 2.0f, 0.0f};
  const std::vector<float> exclusive{0.0f, 0.0f, 0.0f, 2.0f};
  const auto input = array_of(in);
  const auto sum_in = spec_for<float>(op_kind::sum, true);
  const auto sum_ex = spec_for<float>(op_kind::sum, false);
  EXPECT_FALSE(lookback::typed::scan_error(sum_in, input, inclusive.data()));
  EXPECT_FALSE(lookback::typed::scan_error(sum_ex, input, exclusive.data()));
  EXPECT_FALSE(scan_mismatch(sum_in, in, inclusive, inclusive));

  std::vector<float> plus = inclusive;
  plus[1] = 0.0f;
  const auto e = lookback::typed::scan_error(sum_in, input, plus.data());
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->index, 1);
  EXPECT_EQ(e->expected, "-0");
  const auto m = scan_mismatch(sum_in, in, inclusive, plus);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->index, 1);
  std::vector<float> minus = exclusive;
  minus[0] = -0.0f;
  EXPECT_TRUE(lookback::typed::scan_error(sum_ex, input, minus.data()));
  std::vector<float> cancelled = inclusive;
  cancelled[3] = -0.0f;  // 2 + -2 is +0.0
  EXPECT_TRUE(lookback::typed::scan_error(sum_in, input, cancelled.data()));

  // min and max of -0.0 and +0.0 may keep either.
  const std::vector<float> mixed{-0.0f, 0.0f};
  EXPECT_FALSE(scan_mismatch(spec_for<float>(op_kind::min, true), mixed, {-0.0f, -0.0f}, {-0.0f, 0.0f}));
}

TEST(CompareReduce, FloatSumsKeepTheSignOfZero) {
  const std::vector<float> zeros{-0.0f, -0.0f, -0.0f};
  const float plus = 0.0f;
  const float minus = -0.0f;
  EXPECT_FALSE(lookback::typed::reduce_error(op_kind::sum, array_of(zeros), &plus));
  EXPECT_TRUE(lookback::typed::reduce_error(op_kind::sum, array_of(zeros), &minus));
  EXPECT_FALSE(reduce_mismatch(op_kind::sum, zeros, plus, plus));
  EXPECT_TRUE(reduce_mismatch(op_kind::sum, zeros, plus, minus));
  EXPECT_FALSE(reduce_mismatch(op_kind::max, zeros, plus, minus));
}

TEST(CompareReduce, NanOnlyMatchesNan) {
  const double nan = std::nan("");
  const std::vector<double> in{1.0, nan};
  EXPECT_FALSE(reduce_mismatch(op_kind::sum, in, nan, nan));
  EXPECT_TRUE(reduce_mismatch(op_kind::sum, in, nan, 1.0));
  EXPECT_TRUE(reduce_mismatch(op_kind::sum, std::vector<double>{1.0}, 1.0, nan));
}

}  // namespace

namespace {

// The compaction's comparison reads its kind's row of a table (typed/select_predicate.hpp), with an
// unordered outcome for floats alone; every kind against the comparison it stands for, on both sides of
// the value, equal to it, at the integers' extremes, and NaN (unordered: only ne and nonzero keep it).
TEST(ComparePredicate, EveryKindAgreesWithItsComparison) {
  using lookback::typed::compare_kind;
  using lookback::typed::compare_predicate;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const float x : {-2.0f, 0.0f, -0.0f, 3.0f, 5.0f, 7.5f, nan}) {
    const float v = 5.0f;
    EXPECT_EQ((compare_predicate<float>{compare_kind::gt, v}(x)), x > v) << x;
    EXPECT_EQ((compare_predicate<float>{compare_kind::ge, v}(x)), x >= v) << x;
    EXPECT_EQ((compare_predicate<float>{compare_kind::lt, v}(x)), x < v) << x;
    EXPECT_EQ((compare_predicate<float>{compare_kind::le, v}(x)), x <= v) << x;
    EXPECT_EQ((compare_predicate<float>{compare_kind::eq, v}(x)), x == v) << x;
    EXPECT_EQ((compare_predicate<float>{compare_kind::ne, v}(x)), x != v) << x;
    EXPECT_EQ((compare_predicate<float>{compare_kind::nonzero, 0.0f}(x)), x != 0.0f) << x;
  }
  EXPECT_TRUE((compare_predicate<float>{compare_kind::ne, 1.0f}(nan)));
  EXPECT_FALSE((compare_predicate<float>{compare_kind::eq, nan}(nan)));
  for (const std::int32_t x : {std::numeric_limits<std::int32_t>::min(), -7, 0, 4, 5, 6,
                               std::numeric_limits<std::int32_t>::max()}) {
    EXPECT_EQ((compare_predicate<std::int32_t>{compare_kind::gt, 5}(x)), x > 5) << x;
    EXPECT_EQ((compare_predicate<std::int32_t>{compare_kind::ge, 5}(x)), x >= 5) << x;
    EXPECT_EQ((compare_predicate<std::int32_t>{compare_kind::lt, 5}(x)), x < 5) << x;
    EXPECT_EQ((compare_predicate<std::int32_t>{compare_kind::le, 5}(x)), x <= 5) << x;
    EXPECT_EQ((compare_predicate<std::int32_t>{compare_kind::eq, 5}(x)), x == 5) << x;
    EXPECT_EQ((compare_predicate<std::int32_t>{compare_kind::ne, 5}(x)), x != 5) << x;
    EXPECT_EQ((compare_predicate<std::int32_t>{compare_kind::nonzero, 0}(x)), x != 0) << x;
    // nonzero ignores the value.
    EXPECT_EQ((compare_predicate<std::int32_t>{compare_kind::nonzero, 4}(x)), x != 0) << x;
  }
  const std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
  for (const std::uint64_t x : {std::uint64_t{0}, top - 1, top}) {
    EXPECT_EQ((compare_predicate<std::uint64_t>{compare_kind::lt, top}(x)), x < top) << x;
    EXPECT_EQ((compare_predicate<std::uint64_t>{compare_kind::ge, top - 1}(x)), x >= top - 1) << x;
    EXPECT_EQ((compare_predicate<std::uint64_t>{compare_kind::eq, 0}(x)), x == 0) << x;
  }
}

}  // namespace
