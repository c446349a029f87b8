#pragma once
// Reduce and scan of a loaded array on the chosen backend, shared by the reduce, scan and demo commands.
#include "cli/common_options.hpp"
#include "io/array.hpp"
#include "typed/typed_ops.hpp"

#include <string>

namespace lookback::cli {

/// The reduction as a one-element array of the input's dtype; prints the verification line when asked.
io::host_array reduce_array(const io::host_array& input, typed::op_kind op, backend b, bool verify);

/// The scan, with the input's dtype and shape; prints the verification line when asked.
io::host_array scan_array(const io::host_array& input, const typed::scan_spec& spec, backend b, bool verify);

/// "inclusive max", "exclusive sum"
std::string describe(const typed::scan_spec& spec);

}  // namespace lookback::cli
