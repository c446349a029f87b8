#pragma once
// conv2d, sat and boxfilter of loaded images on the chosen backend, channel by channel, shared by
// their commands and the demo. With --verify the GPU's result is checked against the CPU reference
// (there is no CUB equivalent) and its kernel time reported.
#include "cli/common_options.hpp"
#include "io/array.hpp"
#include "typed/image_masks.hpp"

#include <lookback/primitives/convolution/boundary.cuh>

#include <filesystem>
#include <optional>
#include <string>

namespace lookback::cli {

struct image_check {
  float gpu_ms = 0;              // every channel's kernels, each the median of 9 timed runs
  double max_difference = 0;     // largest |GPU - reference|
  double tolerance_there = 0;    // the tolerance at that element
};

struct image_result {
  io::host_array output;  // the input's shape: (height, width) or (height, width, 3)
  std::optional<image_check> verified;
};

/// The element type a filter of `pixels` computes and writes in: float64 for float64 arrays, float32
/// for everything else (8- and 16-bit images, float32 arrays).
io::dtype filter_type_of(const io::host_array& pixels);

/// Whether conv2d and boxfilter take these pixels: uint8/uint16 images, float32/float64 arrays.
bool is_filter_input(io::dtype type);
/// Whether sat takes them: uint8, uint16, uint32, uint64, float32, float64.
bool is_sat_input(io::dtype type);
/// The default accumulator: uint64 for integers, float64 for floating point.
io::dtype default_accumulator(io::dtype pixels);
/// Why `acc` cannot hold sums of `pixels` exactly as sat promises, or empty.
std::string accumulator_problem(io::dtype pixels, io::dtype acc);

/// Each channel correlated with the mask (lookback::convolve2d).
image_result conv2d_image(const io::host_array& pixels, const typed::image_mask& mask, boundary b, backend be,
                          bool verify);
/// Each channel's summed-area table in `acc` (lookback::summed_area_table).
image_result sat_image(const io::host_array& pixels, io::dtype acc, backend be, bool verify);
/// Each channel's mean over the (2 radius + 1)^2 window with zeros past the edges, from its table.
image_result boxfilter_image(const io::host_array& pixels, int radius, backend be, bool verify);

/// "verify conv2d: lookback 0.0123 ms on the GPU, matches the CPU reference (largest difference 1.2e-07, allowed 3.4e-06)"
std::string check_line(const image_check& check, const std::string& what);

/// Writes `r.output` to `output` (save_image, rounded to `samples` for .png/.pgm) and prints its
/// image_summary line after `indent` and, after --verify, its check_line after twice that indent.
void save_and_report(const image_result& r, const io::host_array& pixels, const std::filesystem::path& output,
                     io::dtype samples, const std::string& what, const std::string& check_what,
                     const std::string& indent = "");

}  // namespace lookback::cli
