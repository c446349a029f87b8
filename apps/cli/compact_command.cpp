#include "cli/array_files.hpp"
#include "cli/array_ops.hpp"
#include "cli/cli_error.hpp"
#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/exit_codes.hpp"
#include "io/atomic_file.hpp"
#include "typed/select_ops.hpp"

#include <algorithm>
#include <iostream>

namespace lookback::cli {
namespace {

/// One 0 or 1 per value. The flags must have the values' shape: NumPy's rule for a boolean mask, so a
/// mask means here what it means in x[mask].
std::vector<std::uint8_t> load_flags(const std::string& path, const std::string& raw_dtype,
                                     const std::string& values_path, const io::host_array& values) {
  const io::host_array flags = load_array(path, raw_dtype, "--flags-dtype");
  // A float's sign bit makes -0.0 look nonzero byte by byte; floats are not flags anyway.
  if (flags.type == io::dtype::float32 || flags.type == io::dtype::float64)
    throw cli_error(exit_code::data_error,
                    path + ": flags dtype " + std::string(io::dtype_name(flags.type)) +
                        " is not supported (supported: bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64)");
  if (flags.shape != values.shape)
    throw cli_error(exit_code::data_error, path + ": flags of shape " + io::shape_string(flags.shape) +
                                               " do not match the values' shape " + io::shape_string(values.shape) +
                                               " in " + values_path);
  // An integer is nonzero exactly when one of its bytes is, whatever its width and signedness.
  const std::size_t width = io::dtype_size(flags.type);
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(flags.size()));
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const std::byte* first = flags.bytes.data() + i * width;
    bytes[i] = std::any_of(first, first + width, [](std::byte b) { return b != std::byte{0}; }) ? 1 : 0;
  }
  return bytes;
}

}  // namespace

int compact_command(const args& a) {
  common_options common;
  std::string input, output, flags_path, flags_dtype, predicate;
  po::options_description desc("compact options");
  desc.add_options()
      ("input,i", po::value(&input)->required(), "values (.npy, or raw with --dtype)")
      ("output,o", po::value(&output)->required(), "the kept values, 1-D (.npy, or raw bytes for any other name)")
      ("flags", po::value(&flags_path), "keep where this array (bool or integer, the values' shape) is nonzero")
      ("flags-dtype", po::value(&flags_dtype), "element type of raw (non-.npy) --flags")
      ("predicate", po::value(&predicate), "keep values that are: nonzero | gt:V | ge:V | lt:V | le:V | eq:V | ne:V");
  add_common_options(desc, common);
  const auto vm = parse_options(a, desc, "lookback compact -i X.npy -o Y.npy (--flags F.npy | --predicate P)");
  if (!vm) return exit_code::ok;

  const bool by_flags = vm->count("flags") != 0;
  if (by_flags == (vm->count("predicate") != 0))
    throw cli_error(exit_code::usage, by_flags ? "give --flags or --predicate, not both"
                                               : "which values to keep? give --flags F.npy or --predicate P");
  if (vm->count("flags-dtype") != 0 && !by_flags) throw cli_error(exit_code::usage, "--flags-dtype applies to --flags only");
  io::refuse_same_file(input, output);
  if (by_flags) io::refuse_same_file(flags_path, output);
  const backend b = resolve_backend(common);
  const io::host_array values = load_array(input, common.dtype);
  require_numeric(input, values);

  typed::select_spec spec{values.type, by_flags, typed::compare_kind::nonzero, {}};
  std::vector<std::uint8_t> flags;
  if (by_flags)
    flags = load_flags(flags_path, flags_dtype, input, values);
  else if (const auto problem = typed::parse_predicate(values.type, predicate, spec))
    throw cli_error(exit_code::usage, "--predicate: " + *problem);

  const op_result r = compact_array(values, spec, flags, b, common.verify);
  save_array(output, r.output, input);
  std::cout << "compact " << describe(spec) << ": kept " << r.output.size() << " of " << values.size() << " "
            << io::dtype_name(values.type) << " elements -> " << output << "\n";
  if (r.verified) std::cout << verification_line(*r.verified, "compact " + describe(spec)) << "\n";
  return exit_code::ok;
}

}  // namespace lookback::cli
