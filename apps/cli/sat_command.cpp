#include "cli/cli_error.hpp"
#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/exit_codes.hpp"
#include "cli/image_files.hpp"
#include "cli/image_run.hpp"
#include "typed/image_ops.hpp"

#include <iostream>

namespace lookback::cli {

int sat_command(const args& a) {
  common_options common;
  std::string input, output, accumulator;
  po::options_description desc("sat options");
  desc.add_options()
      ("input,i", po::value(&input)->required(),
       "image: 2-D .npy (uint8, uint16, uint32, uint64, float32, float64), .png (grey or RGB) or .pgm")
      ("output,o", po::value(&output)->required(), "the table, .npy of the accumulator dtype, the input's shape")
      ("accumulator", po::value(&accumulator),
       "uint32 | uint64 | float | double (default: uint64 for integer pixels, double for floating point)");
  add_common_options(desc, common);
  if (!parse_options(a, desc, "lookback sat -i IMG -o SAT.npy [--accumulator uint32|uint64|float|double]"))
    return exit_code::ok;
  if (!common.dtype.empty()) throw cli_error(exit_code::usage, "--dtype applies to raw input; sat reads .npy, .png and .pgm");
  std::optional<io::dtype> acc;
  if (!accumulator.empty()) {
    acc = io::parse_dtype(accumulator);
    if (!acc || !typed::is_accumulator(*acc))
      throw cli_error(exit_code::usage, "--accumulator must be uint32, uint64, float or double, not '" + accumulator + "'");
  }
  check_output_path(output, {input}, {image_format::npy});
  const backend be = resolve_backend(common);

  const io::host_array pixels = load_image(input);
  if (!is_sat_input(pixels.type))
    throw cli_error(exit_code::data_error, input + ": dtype " + std::string(io::dtype_name(pixels.type)) +
                                               " is not supported (supported: uint8, uint16, uint32, uint64, float32, float64)");
  if (!acc) acc = default_accumulator(pixels.type);
  if (const std::string problem = accumulator_problem(pixels.type, *acc); !problem.empty())
    throw cli_error(exit_code::usage, input + ": " + problem);

  const image_result r = sat_image(pixels, *acc, be, common.verify);
  save_and_report(r, pixels, output, io::dtype::uint8, "sat", "sat " + std::string(io::dtype_name(*acc)));
  return exit_code::ok;
}

}  // namespace lookback::cli
