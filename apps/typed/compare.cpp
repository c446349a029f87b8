#include "typed/compare.hpp"

#include "typed/visit.hpp"

#include <sstream>

namespace lookback::typed {
namespace {
template <class T>
T init_of(const scan_spec& spec) {
  return spec.inclusive ? T(0) : scalar_as<T>(spec.init);
}
}  // namespace

std::optional<mismatch> first_scan_mismatch(const scan_spec& spec, const void* input, const void* expected,
                                            const void* actual, std::int64_t n) {
  return visit_numeric(spec.type, [&](auto zero) -> std::optional<mismatch> {
    using T = decltype(zero);
    return scan_mismatch_from(spec, init_of<T>(spec), 0, static_cast<const T*>(input), static_cast<const T*>(expected),
                              static_cast<const T*>(actual), n);
  });
}

std::optional<mismatch> reduce_mismatch(io::dtype type, op_kind op, const void* input, std::int64_t n,
                                        const void* expected, const void* actual) {
  return visit_numeric(type, [&](auto zero) -> std::optional<mismatch> {
    using T = decltype(zero);
    const auto* in = static_cast<const T*>(input);
    sum_allowance<T> allowance;
    for (std::int64_t i = 0; i < n; ++i) allowance.add(static_cast<double>(in[i]));
    const T want = *static_cast<const T*>(expected);
    const T got = *static_cast<const T*>(actual);
    if (results_match(op, want, got, allowance.tolerance(n))) return std::nullopt;
    return mismatch{0, format_value(want), format_value(got)};
  });
}

}  // namespace lookback::typed
