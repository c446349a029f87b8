#include "cli/cli_error.hpp"
#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/exit_codes.hpp"
#include "cli/image_files.hpp"
#include "cli/image_run.hpp"

#include <iostream>

namespace lookback::cli {

/// Past this the window's side, 2R + 1, would not fit an int; any R at least the image's size already
/// gives every pixel the whole image.
constexpr int max_radius = (1 << 30) - 1;

int boxfilter_command(const args& a) {
  common_options common;
  std::string input, output;
  long radius = -1;
  po::options_description desc("boxfilter options");
  desc.add_options()
      ("input,i", po::value(&input)->required(), "image: .png (grey or RGB), .pgm, or a 2-D float32, float64, uint8 or uint16 .npy")
      ("output,o", po::value(&output)->required(), ".npy (float values), .png or .pgm (rounded, clamped)")
      ("radius", po::value(&radius)->required(),
       "R: each pixel becomes the mean of the (2R+1) x (2R+1) window about it, zeros past the edges");
  add_common_options(desc, common);
  if (!parse_options(a, desc, "lookback boxfilter -i IN -o OUT --radius R")) return exit_code::ok;
  if (!common.dtype.empty())
    throw cli_error(exit_code::usage, "--dtype applies to raw input; boxfilter reads .npy, .png and .pgm");
  if (radius < 0 || radius > max_radius)
    throw cli_error(exit_code::usage,
                    "--radius must be between 0 and " + std::to_string(max_radius) + ", not " + std::to_string(radius));
  check_output_path(output, {input}, {image_format::npy, image_format::png, image_format::pgm});
  const backend be = resolve_backend(common);

  const io::host_array pixels = load_image(input);
  require_filter_input(input, pixels);
  check_output_channels(output, pixels, input);

  const image_result r = boxfilter_image(pixels, static_cast<int>(radius), be, common.verify);
  save_and_report(r, pixels, output, image_sample_type(pixels, input), "boxfilter radius " + std::to_string(radius),
                  "boxfilter");
  return exit_code::ok;
}

}  // namespace lookback::cli
