#pragma once
// Checks a result against the CPU reference (the tests, and the ladder command, use it): integers and min/max exactly, in the element type;
// floating-point sums against a long double reference within typed::sum_allowance (exactly, for whole-valued terms).
#include "io/array.hpp"
#include "typed/compare.hpp"

#include <optional>

namespace lookback::typed {

std::optional<mismatch> scan_error(const scan_spec& spec, const io::host_array& input, const void* actual);
std::optional<mismatch> reduce_error(op_kind op, const io::host_array& input, const void* actual);

}  // namespace lookback::typed
