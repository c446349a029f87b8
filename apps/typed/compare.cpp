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
    const auto* in = static_cast<const T*>(input);
    const auto* want = static_cast<const T*>(expected);
    const auto* got = static_cast<const T*>(actual);
    sum_allowance<T> allowance;
    allowance.add(static_cast<double>(init_of<T>(spec)));
    for (std::int64_t i = 0; i < n; ++i) {
      if (spec.inclusive) allowance.add(static_cast<double>(in[i]));
      if (!results_match(spec.op, want[i], got[i], allowance.tolerance(i + 1)))
        return mismatch{i, format_value(want[i]), format_value(got[i])};
      if (!spec.inclusive) allowance.add(static_cast<double>(in[i]));
    }
    return std::nullopt;
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
