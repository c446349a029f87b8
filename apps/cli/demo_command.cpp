#include "cli/array_files.hpp"
#include "cli/array_ops.hpp"
#include "cli/cli_error.hpp"
#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "io/atomic_file.hpp"
#include "typed/gpu_probe.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>

namespace lookback::cli {
namespace fs = std::filesystem;

namespace {
std::vector<fs::path> sample_files(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw cli_error(exit_code::no_input, dir.string() + ": not a directory");
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_regular_file() && io::extension_lower(entry.path()) == ".npy") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw cli_error(exit_code::no_input, dir.string() + ": holds no .npy sample files");
  return files;
}
}  // namespace

int demo_command(const args& a) {
  common_options common;
  std::string data_dir = "data", output_dir = "lookback-demo";
  po::options_description desc("demo options");
  desc.add_options()
      ("data-dir", po::value(&data_dir)->default_value("data"), "folder of sample .npy files")
      ("output-dir", po::value(&output_dir)->default_value("lookback-demo"), "folder for the outputs (created)");
  add_common_options(desc, common);
  if (!parse_options(a, desc, "lookback demo [--data-dir data] [--output-dir DIR] [--verify]")) return exit_code::ok;

  const backend b = resolve_backend(common);
  const std::vector<fs::path> files = sample_files(data_dir);
  std::error_code ec;
  fs::create_directories(output_dir, ec);
  if (ec) throw cli_error(exit_code::cant_create, output_dir + ": cannot create the output folder: " + ec.message());
  std::cout << "lookback demo on " << (b == backend::gpu ? typed::gpu_description() : std::string("the CPU reference"))
            << "\n";

  for (const fs::path& file : files) {
    const io::host_array array = load_array(file, "");
    if (!typed::is_numeric(array.type)) continue;
    std::cout << "\n" << file.filename().string() << ": " << array.size() << " " << io::dtype_name(array.type) << "\n";
    for (const typed::op_kind op : {typed::op_kind::sum, typed::op_kind::min, typed::op_kind::max}) {
      const op_result r = reduce_array(array, op, b, common.verify);
      std::cout << "  reduce " << typed::op_name(op) << " = "
                << typed::format_scalar(typed::load_scalar(array.type, r.output.bytes.data())) << "\n";
      if (r.verified) std::cout << "    " << verification_line(*r.verified, "reduce " + std::string(typed::op_name(op))) << "\n";
    }
    for (const bool inclusive : {false, true}) {
      typed::scan_spec spec{array.type, typed::op_kind::sum, inclusive, typed::identity(array.type, typed::op_kind::sum)};
      const fs::path out = fs::path(output_dir) / (file.stem().string() + (inclusive ? ".inclusive_sum.npy" : ".exclusive_sum.npy"));
      const op_result r = scan_array(array, spec, b, common.verify);
      save_array(out, r.output, file);
      std::cout << "  " << describe(spec) << " scan -> " << out.string() << "\n";
      if (r.verified) std::cout << "    " << verification_line(*r.verified, describe(spec) + " scan") << "\n";
    }
  }
  return exit_code::ok;
}

}  // namespace lookback::cli
