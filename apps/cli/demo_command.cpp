#include "cli/array_files.hpp"
#include "cli/array_ops.hpp"
#include "cli/bar_chart.hpp"
#include "cli/cli_error.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/image_files.hpp"
#include "cli/image_run.hpp"
#include "cli/fir_run.hpp"
#include "io/atomic_file.hpp"
#include "io/audio.hpp"
#include "typed/fir_design.hpp"
#include "typed/gpu_probe.hpp"

#include <algorithm>
#include <filesystem>
#include <initializer_list>
#include <iostream>
#include <numeric>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace lookback::cli {
namespace fs = std::filesystem;

namespace {
/// The data folder's regular files, sorted; one that cannot be listed is refused as an input.
std::vector<fs::path> data_files(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw cli_error(exit_code::no_input, dir.string() + ": not a directory");
  std::vector<fs::path> files;
  const auto refuse = [&] { throw cli_error(exit_code::no_input, dir.string() + ": cannot read: " + ec.message()); };
  fs::directory_iterator entry(dir, ec);
  for (; !ec && entry != fs::directory_iterator(); entry.increment(ec)) {
    std::error_code unreadable;  // a dangling link or an entry we may not stat: not a sample, skipped
    if (entry->is_regular_file(unreadable)) files.push_back(entry->path());
  }
  if (ec) refuse();
  std::sort(files.begin(), files.end());
  return files;
}

/// The files among `files` with one of `extensions` (lower case).
std::vector<fs::path> with_extension(const std::vector<fs::path>& files, std::initializer_list<const char*> extensions) {
  std::vector<fs::path> chosen;
  for (const fs::path& file : files)
    for (const char* ext : extensions)
      if (io::extension_lower(file) == ext) chosen.push_back(file);
  return chosen;
}

/// Names the demo's outputs, sample stem and suffix, refusing one that is a file of the data folder
/// (through a link left in the output folder, say): the demo never overwrites what it reads.
class output_names {
 public:
  output_names(fs::path dir, const std::vector<fs::path>& data) : dir_(std::move(dir)), data_(data) {}
  fs::path operator()(const fs::path& sample, const std::string& suffix) const {
    const fs::path out = dir_ / (sample.stem().string() + suffix);
    for (const fs::path& input : data_) io::refuse_same_file(input, out);
    return out;
  }

 private:
  fs::path dir_;
  const std::vector<fs::path>& data_;
};

/// A 1 kHz lowpass of the recording (101 taps, Hamming window), in its own format.
void show_fir(const fs::path& file, const output_names& name, backend b, bool verify) {
  io::audio_reader in(file);
  const io::audio_format& format = in.format();
  std::cout << "\n" << file.filename().string() << ": " << describe(format) << ", " << in.frames() << " frames\n";
  const typed::fir_band band{0.0, 1000.0 / (format.sample_rate / 2.0)};
  if (const std::string problem = typed::fir_design_problem(band, 101); !problem.empty()) {
    std::cout << "  fir skipped: a 1000 Hz cutoff needs a sample rate above 2000 Hz\n";
    return;
  }
  const fs::path out = name(file, ".lowpass_1khz" + file.extension().string());
  const fir_report r = filter_audio(in, out, format, typed::design_fir(band, 101, {}), default_block_frames(format.channels), b,
                                    verify);
  std::cout << "  fir lowpass 1000 Hz, 101 taps, hamming window -> " << out.string() << "; "
            << clipping_line(r, format.channels) << "\n";
  if (r.verified) std::cout << "    " << verification_line(*r.verified) << "\n";
}

/// 12 bins from the smallest sample to just past the largest (found by the reductions), as a chart.
void show_histogram(const io::host_array& array, double min, double max, backend b, bool verify) {
  typed::histogram_spec spec{array.type, io::dtype::uint64, 12, min, 0.0};
  const bool integral = array.type != io::dtype::float32 && array.type != io::dtype::float64;
  spec.upper = integral ? max + 1 : max + (max - min) * 1e-6 + 1e-30;
  if (spec.upper <= spec.lower) spec.upper = spec.lower + 1;
  if (const std::string problem = typed::histogram_spec_problem(spec); !problem.empty()) {
    std::cout << "  histogram skipped: " << problem << "\n";
    return;
  }
  const op_result r = histogram_array(array, spec, b, verify);
  std::cout << "  histogram, 12 bins over [" << spec.lower << ", " << spec.upper << "):\n";
  std::ostringstream chart;
  print_bar_chart(chart, widen(r.output), spec.lower, spec.upper, 12, 40);
  std::istringstream lines(chart.str());
  for (std::string line; std::getline(lines, line);) std::cout << "    " << line << "\n";
  if (r.verified) std::cout << "    " << verification_line(*r.verified, "histogram") << "\n";
}

/// The sample's positive values (rainy days, credits, busy milliseconds), written next to its scans.
void show_compaction(const fs::path& file, const io::host_array& array, const output_names& name, backend b,
                     bool verify) {
  typed::select_spec spec;
  (void)typed::parse_predicate(array.type, "gt:0", spec);  // valid for every numeric dtype
  const fs::path out = name(file, ".positive.npy");
  const op_result r = compact_array(array, spec, {}, b, verify);
  save_array(out, r.output, file);
  std::cout << "  compact " << describe(spec) << ": kept " << r.output.size() << " of " << array.size() << " -> "
            << out.string() << "\n";
  if (r.verified) std::cout << "    " << verification_line(*r.verified, "compact " + describe(spec)) << "\n";
}

/// The sample in ascending order, and where each sorted value stood (a stable argsort, as NumPy's
/// argsort(kind="stable") gives).
void show_sort(const fs::path& file, const io::host_array& array, const output_names& name, backend b, bool verify) {
  const std::int64_t n = array.size();
  io::host_array positions{io::dtype::int64, {n},
                           std::vector<std::byte>(static_cast<std::size_t>(n) * sizeof(std::int64_t))};
  std::iota(positions.as<std::int64_t>(), positions.as<std::int64_t>() + n, std::int64_t{0});
  const typed::sort_spec spec{array.type, sizeof(std::int64_t), false, 0, typed::key_bits(array.type)};
  const sort_result r = sort_arrays(array, &positions, spec, b, verify);
  const fs::path sorted = name(file, ".sorted.npy");
  const fs::path order = name(file, ".sort_order.npy");
  save_arrays({{sorted, &r.keys}, {order, &*r.values}}, {file});
  std::cout << "  sort " << describe(spec) << " -> " << sorted.string() << ", positions -> " << order.string() << "\n";
  if (r.verified) std::cout << "    " << verification_line(*r.verified, "sort " + describe(spec)) << "\n";
}

/// Each sample image (data/*.png) blurred, its summed-area table, and box-filtered from that table.
void show_image_filters(const std::vector<fs::path>& images, const output_names& name, backend b, bool verify) {
  for (const fs::path& file : images) {
    const io::host_array pixels = load_image(file);
    std::cout << "\n" << file.filename().string() << ": " << io::shape_string(pixels.shape) << " "
              << io::dtype_name(pixels.type) << "\n";
    const fs::path gaussian = name(file, ".gaussian.png"), sat = name(file, ".sat.npy"), box5 = name(file, ".box5.png");
    const io::dtype samples = image_sample_type(pixels, file);
    typed::image_mask mask;
    (void)typed::parse_kernel_spec("gaussian:7:1.5", mask);  // a valid spec
    save_and_report(conv2d_image(pixels, mask, boundary::mirror, b, verify), pixels, gaussian, samples,
                    "conv2d gaussian:7:1.5, border mirror", "conv2d", "  ");
    save_and_report(sat_image(pixels, default_accumulator(pixels.type), b, verify), pixels, sat, samples, "sat", "sat",
                    "  ");
    save_and_report(boxfilter_image(pixels, 2, b, verify), pixels, box5, samples, "boxfilter radius 2", "boxfilter",
                    "  ");
  }
}

}  // namespace

int demo_command(const args& a) {
  common_options common;
  std::string data_dir = "data", output_dir = "lookback-demo";
  po::options_description desc("demo options");
  desc.add_options()
      ("data-dir", po::value(&data_dir)->default_value("data"), "folder of sample .npy files (and .wav or .flac recordings)")
      ("output-dir", po::value(&output_dir)->default_value("lookback-demo"), "folder for the outputs (created)");
  add_common_options(desc, common);
  if (!parse_options(a, desc, "lookback demo [--data-dir data] [--output-dir DIR] [--verify]")) return exit_code::ok;

  if (!common.dtype.empty()) throw cli_error(exit_code::usage, "--dtype applies to raw arrays; the demo reads .npy samples");
  const backend b = resolve_backend(common);
  // On a GPU every result is checked against CUB or the CPU reference, --verify or not: a demo that
  // printed a wrong answer with exit 0 would show nothing.
  const bool verify = common.verify || b == backend::gpu;
  const std::vector<fs::path> everything = data_files(data_dir);
  const std::vector<fs::path> files = with_extension(everything, {".npy"});
  if (files.empty()) throw cli_error(exit_code::no_input, data_dir + ": holds no .npy sample files");
  // Outputs in the data folder would be read back as samples by the next run, and overwritten by it.
  if (std::error_code same; fs::equivalent(output_dir, data_dir, same))
    throw cli_error(exit_code::cant_create, output_dir + ": is the data folder, whose every file the demo reads");
  // Every sample array read before anything is created: a corrupt one stops the demo with no output
  // folder left behind.
  std::vector<io::host_array> arrays;
  arrays.reserve(files.size());
  for (const fs::path& file : files) arrays.push_back(load_array(file, ""));
  std::error_code ec;
  fs::create_directories(output_dir, ec);
  if (ec) throw cli_error(exit_code::cant_create, output_dir + ": cannot create the output folder: " + ec.message());
  const output_names name(output_dir, everything);
  std::cout << "lookback demo on " << (b == backend::gpu ? typed::gpu_description() : std::string("the CPU reference"))
            << "\n";

  for (std::size_t i = 0; i < files.size(); ++i) {
    const fs::path& file = files[i];
    const io::host_array& array = arrays[i];
    if (!typed::is_numeric(array.type)) {
      std::cout << "\n" << file.filename().string() << ": " << io::dtype_name(array.type) << ", not numeric: skipped\n";
      continue;
    }
    std::cout << "\n" << file.filename().string() << ": " << array.size() << " " << io::dtype_name(array.type) << "\n";
    std::vector<double> extremes;
    for (const typed::op_kind op : {typed::op_kind::sum, typed::op_kind::min, typed::op_kind::max}) {
      const op_result r = reduce_array(array, op, b, verify);
      const typed::scalar value = typed::load_scalar(array.type, r.output.bytes.data());
      std::cout << "  reduce " << typed::op_name(op) << " = " << typed::format_scalar(value) << "\n";
      if (r.verified) std::cout << "    " << verification_line(*r.verified, "reduce " + std::string(typed::op_name(op))) << "\n";
      if (op != typed::op_kind::sum) extremes.push_back(typed::to_double(value));
    }
    if (typed::is_histogram_sample(array.type)) show_histogram(array, extremes[0], extremes[1], b, verify);
    for (const bool inclusive : {false, true}) {
      typed::scan_spec spec{array.type, typed::op_kind::sum, inclusive, typed::identity(array.type, typed::op_kind::sum)};
      const fs::path out = name(file, inclusive ? ".inclusive_sum.npy" : ".exclusive_sum.npy");
      const op_result r = scan_array(array, spec, b, verify);
      save_array(out, r.output, file);
      std::cout << "  " << describe(spec) << " scan -> " << out.string() << "\n";
      if (r.verified) std::cout << "    " << verification_line(*r.verified, describe(spec) + " scan") << "\n";
    }
    show_compaction(file, array, name, b, verify);
    show_sort(file, array, name, b, verify);
  }
  for (const fs::path& file : with_extension(everything, {".wav", ".flac"})) show_fir(file, name, b, verify);
  show_image_filters(with_extension(everything, {".png"}), name, b, verify);
  return exit_code::ok;
}

}  // namespace lookback::cli
