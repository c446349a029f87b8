#include "cli/array_files.hpp"
#include "cli/array_ops.hpp"
#include "cli/cli_error.hpp"
#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/exit_codes.hpp"
#include "io/atomic_file.hpp"

#include <iostream>

namespace lookback::cli {

int scan_command(const args& a) {
  common_options common;
  std::string input, output, op_text = "sum", init_text;
  bool inclusive = false;
  po::options_description desc("scan options");
  desc.add_options()
      ("input,i", po::value(&input)->required(), "input array (.npy, or raw with --dtype)")
      ("output,o", po::value(&output)->required(), "output array (.npy, or raw bytes for any other name)")
      ("inclusive", po::bool_switch(&inclusive), "inclusive scan (default: exclusive)")
      ("op", po::value(&op_text)->default_value("sum"), "sum | min | max")
      ("init", po::value(&init_text), "initial value of an exclusive scan (default: the operator's identity)");
  add_common_options(desc, common);
  const auto vm = parse_options(a, desc, "lookback scan -i X.npy -o Y.npy [--inclusive] [--op sum|min|max] [--init V]");
  if (!vm) return exit_code::ok;

  typed::scan_spec spec;
  spec.op = parse_op_option(op_text);
  spec.inclusive = inclusive;
  const bool has_init = vm->count("init") != 0;
  if (inclusive && has_init) throw cli_error(exit_code::usage, "--init applies to exclusive scans only");
  io::refuse_same_file(input, output);
  const backend b = resolve_backend(common);
  const io::host_array array = load_array(input, common.dtype);
  require_numeric(input, array);
  spec.type = array.type;
  spec.init = typed::identity(array.type, spec.op);
  if (has_init) {
    const auto init = typed::parse_scalar(array.type, init_text);
    if (!init)
      throw cli_error(exit_code::usage, "--init: '" + init_text + "' is not a valid " +
                                            std::string(io::dtype_name(array.type)) + " value");
    spec.init = *init;
  }
  const op_result r = scan_array(array, spec, b, common.verify);
  save_array(output, r.output, input);
  std::cout << describe(spec) << " scan of " << array.size() << " " << io::dtype_name(array.type) << " elements -> "
            << output << "\n";
  if (r.verified) std::cout << verification_line(*r.verified, describe(spec) + " scan") << "\n";
  return exit_code::ok;
}

}  // namespace lookback::cli
