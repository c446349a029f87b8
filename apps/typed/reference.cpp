#include "typed/reference.hpp"

#include "typed/visit.hpp"

#include <lookback/primitives/cpu/scan.hpp>

#include <sstream>
#include <type_traits>
#include <vector>

namespace lookback::typed {
std::optional<typed::mismatch> scan_error(const typed::scan_spec& spec, const io::host_array& input, const void* actual) {
  const std::int64_t n = input.size();
  return typed::visit_numeric(spec.type, [&](auto zero) -> std::optional<typed::mismatch> {
    using T = decltype(zero);
    const T* in = input.as<T>();
    const T* got = static_cast<const T*>(actual);
    if constexpr (std::is_floating_point_v<T>) {
      if (spec.op == typed::op_kind::sum) {
        // long double (64-bit mantissa on x86-64): the reference must be more precise than float64. An
        // inclusive sum starts from -0.0, which leaves its first item as it is (CUB's begins with the item).
        long double running = spec.inclusive ? -0.0L : static_cast<long double>(typed::scalar_as<T>(spec.init));
        typed::sum_allowance<T> allowance;
        allowance.add(static_cast<double>(running));
        for (std::int64_t i = 0; i < n; ++i) {
          const long double before = running;
          running += static_cast<long double>(in[i]);
          // An exclusive output holds the terms before its own.
          if (spec.inclusive) allowance.add(static_cast<double>(in[i]));
          const double want = static_cast<double>(spec.inclusive ? running : before);
          if (!typed::sums_match(want, got[i], allowance.tolerance(i + 1)))
            return typed::mismatch{i, format_value(want), format_value(got[i])};
          if (!spec.inclusive) allowance.add(static_cast<double>(in[i]));
        }
        return std::nullopt;
      }
    }
    std::vector<T> expected(static_cast<std::size_t>(n));
    typed::scan_cpu(spec, in, expected.data(), n);
    return typed::first_scan_mismatch(spec, in, expected.data(), got, n);
  });
}

std::optional<typed::mismatch> reduce_error(typed::op_kind op, const io::host_array& input, const void* actual) {
  const std::int64_t n = input.size();
  return typed::visit_numeric(input.type, [&](auto zero) -> std::optional<typed::mismatch> {
    using T = decltype(zero);
    const T got = *static_cast<const T*>(actual);
    if constexpr (std::is_floating_point_v<T>) {
      if (op == typed::op_kind::sum) {
        long double sum = 0;  // CUB's Reduce adds its initial value, +0.0: -0.0s total +0.0
        typed::sum_allowance<T> allowance;
        for (std::int64_t i = 0; i < n; ++i) {
          sum += static_cast<long double>(input.as<T>()[i]);
          allowance.add(static_cast<double>(input.as<T>()[i]));
        }
        const double want = static_cast<double>(sum);
        if (typed::sums_match(want, got, allowance.tolerance(n))) return std::nullopt;
        return typed::mismatch{0, format_value(want), format_value(got)};
      }
    }
    T expected{};
    typed::reduce_cpu(input.type, op, input.bytes.data(), &expected, n);
    return typed::reduce_mismatch(input.type, op, input.bytes.data(), n, &expected, &got);
  });
}

}  // namespace lookback::typed
