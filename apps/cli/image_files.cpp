#include "cli/image_files.hpp"

#include "cli/cli_error.hpp"
#include "cli/exit_codes.hpp"
#include "cli/image_run.hpp"
#include "io/atomic_file.hpp"
#include "io/image.hpp"
#include "io/npy.hpp"
#include "io/pgm.hpp"
#include "io/png.hpp"
#include "typed/image_ops.hpp"
#include "typed/image_visit.hpp"

#include <lookback/primitives/convolution/image_side.hpp>

#include <cmath>
#include <limits>
#include <sstream>

namespace lookback::cli {
namespace fs = std::filesystem;

namespace {
const char* extension_of(image_format f) {
  switch (f) {
    case image_format::npy: return ".npy";
    case image_format::png: return ".png";
    case image_format::pgm: return ".pgm";
  }
  return "";
}

/// Rounds and clamps to Sample's range, counting the values that did not fit.
template <class Sample, class T>
io::host_array to_samples(const io::host_array& values, std::int64_t& clipped) {
  io::host_array out{io::dtype_of<Sample>(), values.shape, std::vector<std::byte>(values.size() * sizeof(Sample))};
  constexpr double top = std::numeric_limits<Sample>::max();
  const T* in = values.as<T>();
  Sample* samples = out.as<Sample>();
  for (std::int64_t i = 0; i < values.size(); ++i) {
    const double v = std::nearbyint(static_cast<double>(in[i]));
    const bool fits = v >= 0 && v <= top;  // false for NaN
    clipped += fits ? 0 : 1;
    samples[i] = static_cast<Sample>(fits ? v : v > top ? top : 0);
  }
  return out;
}
}  // namespace

std::optional<image_format> image_format_of(const fs::path& path) {
  const std::string ext = io::extension_lower(path);
  for (const image_format f : {image_format::npy, image_format::png, image_format::pgm})
    if (ext == extension_of(f)) return f;
  return std::nullopt;
}

namespace {
/// The shape checks every image command makes, before a .npy array's data is read and after an image
/// is decoded: the library's side limit (the same number convolve2d and the ladder refuse past).
void check_image_shape(const fs::path& path, const std::vector<std::int64_t>& shape, image_format format) {
  if (shape.size() != 2 && !(shape.size() == 3 && format != image_format::npy))
    throw cli_error(exit_code::data_error, path.string() + ": an image must be a 2-D array (height, width), not shape " +
                                               io::shape_string(shape));
  if (shape[0] == 0 || shape[1] == 0 || (shape.size() == 3 && shape[2] == 0))
    throw cli_error(exit_code::data_error, path.string() + ": image of zero size (" + std::to_string(shape[0]) + " x " +
                                               std::to_string(shape[1]) + ")");
  if (shape[0] > max_image_side || shape[1] > max_image_side)
    throw cli_error(exit_code::data_error, path.string() + ": image of " + io::shape_string(shape) +
                                               " is too large (sides up to " + std::to_string(max_image_side) + ")");
}
}  // namespace

io::host_array load_image(const fs::path& path) {
  const auto format = image_format_of(path);
  if (!format) throw cli_error(exit_code::usage, path.string() + ": not a .npy, .png or .pgm file");
  if (*format == image_format::npy) check_image_shape(path, io::read_npy_layout(path).shape, *format);
  io::host_array a = *format == image_format::npy ? io::read_npy(path)
                     : *format == image_format::png ? io::read_png(path)
                                                    : io::read_pgm(path);
  check_image_shape(path, a.shape, *format);
  return a;
}

void check_output_path(const fs::path& output, const std::vector<fs::path>& inputs,
                       const std::vector<image_format>& allowed) {
  for (const fs::path& input : inputs) io::refuse_same_file(input, output);
  const auto format = image_format_of(output);
  for (const image_format f : allowed)
    if (format == f) return;
  std::string list;
  for (std::size_t i = 0; i < allowed.size(); ++i)
    list += (i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ") + std::string(extension_of(allowed[i]));
  throw cli_error(exit_code::usage, output.string() + ": the output must be a " + list + " file");
}

void check_output_channels(const fs::path& output, const io::host_array& pixels, const fs::path& input) {
  if (image_format_of(output) == image_format::pgm && io::image_channels(pixels) != 1)
    throw cli_error(exit_code::usage, output.string() + ": a PGM holds grey images, and " + input.string() +
                                          " is RGB (write .png or .npy)");
}

io::dtype image_sample_type(const io::host_array& input_pixels, const fs::path& input) {
  return image_format_of(input) != image_format::npy && input_pixels.type == io::dtype::uint16 ? io::dtype::uint16
                                                                                              : io::dtype::uint8;
}

std::int64_t save_image(const fs::path& output, const io::host_array& values, io::dtype samples) {
  io::atomic_output_file file(output);
  const image_format format = *image_format_of(output);
  std::int64_t clipped = 0;
  if (format == image_format::npy) {
    io::write_npy(file, values);
  } else {
    const io::host_array image = typed::visit_filter_type(values.type, [&](auto zero) {
      using T = decltype(zero);
      return samples == io::dtype::uint16 ? to_samples<std::uint16_t, T>(values, clipped)
                                          : to_samples<std::uint8_t, T>(values, clipped);
    });
    if (format == image_format::png)
      io::write_png(file, image);
    else
      io::write_pgm(file, image);
  }
  file.commit();
  return clipped;
}

boundary parse_border_option(const std::string& text) {
  const auto b = parse_boundary(text);
  if (!b) throw cli_error(exit_code::usage, "--border must be zero, clamp or mirror, not '" + text + "'");
  return *b;
}

void require_filter_input(const fs::path& path, const io::host_array& pixels) {
  if (!is_filter_input(pixels.type))
    throw cli_error(exit_code::data_error, path.string() + ": dtype " + std::string(io::dtype_name(pixels.type)) +
                                               " is not supported (supported: float32, float64 arrays; 8- and 16-bit images)");
}

std::string image_summary(const std::string& what, const io::host_array& in, const io::host_array& out,
                          const fs::path& output, std::int64_t clipped, io::dtype samples) {
  std::ostringstream line;
  line << what << ": " << io::image_height(in) << " x " << io::image_width(in)
       << (io::image_channels(in) == 3 ? " RGB " : " ") << io::dtype_name(in.type) << " -> " << output.string() << " ("
       << io::dtype_name(out.type);
  if (image_format_of(output) != image_format::npy)
    line << " rounded to " << io::dtype_name(samples) << ", " << clipped << " of " << out.size()
         << " values clipped to 0.." << (samples == io::dtype::uint16 ? 65535 : 255);
  line << ")";
  return line.str();
}

}  // namespace lookback::cli
