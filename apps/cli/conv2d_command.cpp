#include "cli/array_files.hpp"
#include "cli/cli_error.hpp"
#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/exit_codes.hpp"
#include "cli/image_files.hpp"
#include "cli/image_run.hpp"
#include "io/npy.hpp"
#include "typed/image_ops.hpp"

#include <cmath>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>

namespace lookback::cli {
namespace {

/// A 2-D float32 or float64 .npy mask with odd sides.
typed::image_mask load_mask(const std::string& path) {
  const io::host_array m = io::read_npy(path);
  if (!typed::is_filter_type(m.type))
    throw cli_error(exit_code::data_error, path + ": mask dtype " + std::string(io::dtype_name(m.type)) +
                                               " is not supported (supported: float32, float64)");
  if (m.shape.size() != 2)
    throw cli_error(exit_code::data_error, path + ": the mask must be a 2-D array, not shape " + io::shape_string(m.shape));
  if (m.size() == 0) throw cli_error(exit_code::data_error, path + ": the mask is empty " + io::shape_string(m.shape));
  if (m.shape[0] % 2 == 0 || m.shape[1] % 2 == 0)
    throw cli_error(exit_code::data_error, path + ": the mask must have odd sides (it is centred on its middle tap), not " +
                                               std::to_string(m.shape[0]) + " x " + std::to_string(m.shape[1]));
  if (m.shape[0] > typed::max_kernel_side || m.shape[1] > typed::max_kernel_side)
    throw cli_error(exit_code::data_error, path + ": the mask's sides must be at most " +
                                               std::to_string(typed::max_kernel_side) + ", not " +
                                               std::to_string(m.shape[0]) + " x " + std::to_string(m.shape[1]));
  const std::int64_t columns = m.shape[1];
  return {static_cast<int>(m.shape[0]), static_cast<int>(columns), finite_doubles(m, path, [&](std::int64_t i) {
            return "mask tap (" + std::to_string(i / columns) + ", " + std::to_string(i % columns) + ")";
          })};
}

/// Refuses taps that float32, the type 8- and 16-bit images and float32 arrays filter in, would take
/// as infinite: the float64 check of the taps passes them, and every output became inf or NaN.
void refuse_past_float32(const typed::image_mask& mask, const std::string& source) {
  for (std::size_t i = 0; i < mask.taps.size(); ++i)
    if (std::abs(mask.taps[i]) > std::numeric_limits<float>::max()) {
      std::ostringstream line;
      line << source << ": mask tap (" << i / mask.width << ", " << i % mask.width << ") is " << mask.taps[i]
           << ", past float32, the type this image is filtered in";
      throw cli_error(exit_code::data_error, line.str());
    }
}

}  // namespace

int conv2d_command(const args& a) {
  common_options common;
  std::string input, output, mask_path, kernel, border = "zero";
  po::options_description desc("conv2d options");
  desc.add_options()
      ("input,i", po::value(&input)->required(), "image: .png (grey or RGB), .pgm, or a 2-D float32, float64, uint8 or uint16 .npy")
      ("output,o", po::value(&output)->required(), ".npy (float values), .png or .pgm (rounded, clamped)")
      ("mask", po::value(&mask_path), "2-D float32/float64 .npy mask with odd sides, in correlation form")
      ("kernel", po::value(&kernel), typed::kernel_spec_list())
      ("border", po::value(&border)->default_value("zero"), "what lies past the edges: zero | clamp | mirror");
  add_common_options(desc, common);
  if (!parse_options(a, desc, "lookback conv2d -i IN -o OUT (--mask M.npy | --kernel SPEC) [--border zero|clamp|mirror]"))
    return exit_code::ok;
  if (!common.dtype.empty()) throw cli_error(exit_code::usage, "--dtype applies to raw input; conv2d reads .npy, .png and .pgm");
  if (mask_path.empty() == kernel.empty())
    throw cli_error(exit_code::usage, "give one of --mask M.npy and --kernel " + std::string(typed::kernel_spec_list()));
  const boundary b = parse_border_option(border);
  typed::image_mask mask;
  if (!kernel.empty())
    if (const auto problem = typed::parse_kernel_spec(kernel, mask)) throw cli_error(exit_code::usage, *problem);
  std::vector<std::filesystem::path> inputs{input};
  if (!mask_path.empty()) inputs.emplace_back(mask_path);
  check_output_path(output, inputs, {image_format::npy, image_format::png, image_format::pgm});
  const backend be = resolve_backend(common);

  const io::host_array pixels = load_image(input);
  require_filter_input(input, pixels);
  check_output_channels(output, pixels, input);
  if (!mask_path.empty()) mask = load_mask(mask_path);
  if (filter_type_of(pixels) == io::dtype::float32) refuse_past_float32(mask, mask_path.empty() ? "--kernel " + kernel : mask_path);

  const image_result r = conv2d_image(pixels, mask, b, be, common.verify);
  save_and_report(r, pixels, output, image_sample_type(pixels, input),
                  "conv2d " + (kernel.empty() ? mask_path : kernel) + " " + std::to_string(mask.height) + "x" +
                      std::to_string(mask.width) + ", border " + border,
                  "conv2d");
  return exit_code::ok;
}

}  // namespace lookback::cli
