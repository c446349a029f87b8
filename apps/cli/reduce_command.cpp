#include "cli/array_files.hpp"
#include "cli/array_ops.hpp"
#include "cli/cli_error.hpp"
#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/exit_codes.hpp"
#include "io/atomic_file.hpp"
#include "typed/typed_ops.hpp"

#include <iostream>

namespace lookback::cli {

int reduce_command(const args& a) {
  common_options common;
  std::string input, output, op_text = "sum";
  po::options_description desc("reduce options");
  desc.add_options()
      ("input,i", po::value(&input)->required(), "input array (.npy, or raw with --dtype)")
      ("output,o", po::value(&output), "also write the result as a one-element array (.npy or raw)")
      ("op", po::value(&op_text)->default_value("sum"), "sum | min | max");
  add_common_options(desc, common);
  if (!parse_options(a, desc, "lookback reduce -i X.npy [--op sum|min|max] [-o R.npy]")) return exit_code::ok;

  const typed::op_kind op = parse_op_option(op_text);
  if (!output.empty()) io::refuse_same_file(input, output);
  const backend b = resolve_backend(common);
  const io::host_array array = load_array(input, common.dtype);
  require_numeric(input, array);
  const op_result r = reduce_array(array, op, b, common.verify);
  if (!output.empty()) save_array(output, r.output, input);
  std::cout << typed::format_scalar(typed::load_scalar(array.type, r.output.bytes.data())) << "\n";
  if (r.verified) std::cout << verification_line(*r.verified, "reduce " + op_text) << "\n";
  return exit_code::ok;
}

}  // namespace lookback::cli
