#pragma once
// Result comparison with a rounding allowance for floating-point sums: two correct scans or
// reductions that add in different orders differ by about eps * (sum of |terms|) times a factor that
// grows with the length of their longest sequential chain. Integers and min/max compare exactly, and
// so do sums of whole numbers that no association can round (sum_allowance).
#include "typed/typed_ops.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>

namespace lookback::typed {

template <class T>
double sum_tolerance(double abs_mass, std::int64_t terms) {
  if constexpr (std::is_integral_v<T>) {
    return 0.0;
  } else {
    return std::numeric_limits<T>::epsilon() * abs_mass * (32.0 + std::sqrt(static_cast<double>(terms)) / 8.0);
  }
}

/// The allowance of a floating-point sum, its terms added one by one (an initial value is a term):
/// sum_tolerance's, unless every term is a whole number and both the positive terms and the negative
/// ones add up to at most 2^digits in magnitude. Then every partial sum of any subset of the terms is
/// a whole number within 2^digits, so whatever terms a sum groups together (a reduction's grid-stride
/// threads group terms far apart, not only runs) it forms them exactly: two correct sums are the same
/// number, and the allowance is 0, so a dropped or repeated term shows however small.
template <class T>
class sum_allowance {
 public:
  void add(double term) {
    mass_ += std::abs(term);
    whole_ = whole_ && std::isfinite(term) && term == std::trunc(term);
    (term < 0 ? negative_ : positive_) += std::abs(static_cast<long double>(term));
  }
  double tolerance(std::int64_t terms) const {
    if constexpr (std::is_floating_point_v<T>) {
      // long double adds whole numbers exactly up to 2^digits of its own; one bit below that, a total
      // past the bound cannot round back to within it.
      constexpr int bits = std::min(std::numeric_limits<T>::digits, std::numeric_limits<long double>::digits - 1);
      const long double bound = std::ldexp(1.0L, bits);
      if (whole_ && positive_ <= bound && negative_ <= bound) return 0.0;
    }
    return sum_tolerance<T>(mass_, terms);
  }

 private:
  double mass_ = 0;
  bool whole_ = true;
  long double positive_ = 0, negative_ = 0;
};

/// Integers (expected given as T) compare exactly; floating point within `tolerance`, NaN only with NaN.
template <class T, class Expected>
bool values_match(Expected expected, T actual, double tolerance) {
  if constexpr (std::is_integral_v<T>) {
    static_assert(std::is_same_v<Expected, T>, "integers compare exactly, in their own type");
    return expected == actual;
  } else {
    if (std::isnan(expected) || std::isnan(static_cast<double>(actual)))
      return std::isnan(expected) && std::isnan(static_cast<double>(actual));
    if (std::isinf(expected)) return expected == static_cast<double>(actual);
    return std::abs(static_cast<double>(actual) - expected) <= tolerance;
  }
}

/// values_match for sums, which also compares the sign of zero when both are zero. A float sum that
/// lands on zero is -0.0 exactly when every term is -0.0 (x + -x and -0.0 + +0.0 are +0.0 when rounding
/// to nearest), whatever order adds the terms, so two correct sums of the same terms agree on it; an
/// initial value is a term, which makes CUB's ExclusiveSum and Reduce +0.0 on -0.0s.
template <class T, class Expected>
bool sums_match(Expected expected, T actual, double tolerance) {
  if (!values_match(expected, actual, tolerance)) return false;
  if constexpr (std::is_floating_point_v<T>) {
    if (expected == 0 && actual == 0) return std::signbit(static_cast<double>(expected)) == std::signbit(actual);
  }
  return true;
}

/// sums_match for op_kind::sum, values_match (exactly) for the others: min and max of -0.0 and +0.0
/// may keep either, as their order decides.
template <class T, class Expected>
bool results_match(op_kind op, Expected expected, T actual, double sum_tolerance) {
  return op == op_kind::sum ? sums_match(expected, actual, sum_tolerance) : values_match(expected, actual, 0.0);
}

/// A value in full precision, for mismatch reports.
template <class T>
std::string format_value(T value) {
  std::ostringstream out;
  out.precision(17);
  out << +value;
  return out.str();
}

struct mismatch {
  std::int64_t index = 0;
  std::string expected;
  std::string actual;
  std::string counted_in;  // what the index counts in, where not the whole input ("of a sorted part of N items")
};

/// The first element where `got` differs from `want`, both scans of `in` per `spec` that start from
/// `start` (the initial value, or a streamed chunk's carry), which ends a chain of `chain_before`
/// additions (a carry's rounding is one more step of the longest chain).
template <class T>
std::optional<mismatch> scan_mismatch_from(const scan_spec& spec, T start, std::int64_t chain_before, const T* in,
                                           const T* want, const T* got, std::int64_t n) {
  sum_allowance<T> allowance;
  allowance.add(static_cast<double>(start));
  for (std::int64_t i = 0; i < n; ++i) {
    if (spec.inclusive) allowance.add(static_cast<double>(in[i]));
    if (!results_match(spec.op, want[i], got[i], allowance.tolerance(chain_before + i + 1)))
      return mismatch{i, format_value(want[i]), format_value(got[i])};
    if (!spec.inclusive) allowance.add(static_cast<double>(in[i]));
  }
  return std::nullopt;
}

/// First element where `actual` differs from `expected` (both scans of `input` per `spec`).
std::optional<mismatch> first_scan_mismatch(const scan_spec& spec, const void* input, const void* expected,
                                            const void* actual, std::int64_t n);
/// Whether two reductions of `input` agree.
std::optional<mismatch> reduce_mismatch(io::dtype type, op_kind op, const void* input, std::int64_t n,
                                        const void* expected, const void* actual);

}  // namespace lookback::typed
