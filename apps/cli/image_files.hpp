#pragma once
// Reading the image commands' inputs (.npy arrays, PNG and PGM images) and writing their outputs.
#include "io/array.hpp"

#include <lookback/primitives/convolution/boundary.cuh>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace lookback::cli {

enum class image_format { npy, png, pgm };

/// By extension, case-insensitive: .npy, .png, .pgm.
std::optional<image_format> image_format_of(const std::filesystem::path& path);

/// A 2-D .npy array (height, width), or a PNG or PGM image ((height, width) grey or (height, width, 3)
/// RGB, uint8 or uint16). Refuses other extensions (usage), other shapes and images of zero size (data).
io::host_array load_image(const std::filesystem::path& path);

/// Refuses, before anything is read, an output that names an input (or the mask), or whose extension
/// is not one of `allowed` (usage, listing them).
void check_output_path(const std::filesystem::path& output, const std::vector<std::filesystem::path>& inputs,
                       const std::vector<image_format>& allowed);

/// Refuses an RGB result for a .pgm output (grey only), naming the input that made it RGB.
void check_output_channels(const std::filesystem::path& output, const io::host_array& pixels,
                           const std::filesystem::path& input);

/// The samples an image output holds: the input image's (uint8 or uint16), 8-bit for a .npy input.
io::dtype image_sample_type(const io::host_array& input_pixels, const std::filesystem::path& input);

/// Writes `values` (the computed float32 or float64 array) atomically: as they are to .npy; to
/// .png/.pgm rounded to the nearest integer and clamped to the range of `samples` (NaN to 0). Returns
/// how many values were clamped (NaNs included).
std::int64_t save_image(const std::filesystem::path& output, const io::host_array& values, io::dtype samples);

/// --border zero|clamp|mirror, parsed or refused.
boundary parse_border_option(const std::string& text);

/// Refuses pixels that conv2d and boxfilter do not filter (integer .npy arrays), naming the file.
void require_filter_input(const std::filesystem::path& path, const io::host_array& pixels);

/// "WHAT: 256 x 256 uint8 -> out.png (float32 rounded to uint8, 12 of 65536 values clipped to 0..255)"
std::string image_summary(const std::string& what, const io::host_array& in, const io::host_array& out,
                          const std::filesystem::path& output, std::int64_t clipped, io::dtype samples);

}  // namespace lookback::cli
