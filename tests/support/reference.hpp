#pragma once
// Checks a GPU result against the CPU reference: integers and min/max exactly, in the element type;
// floating-point sums against a double-precision reference within typed::sum_tolerance.
#include "io/array.hpp"
#include "typed/compare.hpp"

#include <optional>

namespace lookback::test {

std::optional<typed::mismatch> scan_error(const typed::scan_spec& spec, const io::host_array& input, const void* actual);
std::optional<typed::mismatch> reduce_error(typed::op_kind op, const io::host_array& input, const void* actual);

}  // namespace lookback::test
