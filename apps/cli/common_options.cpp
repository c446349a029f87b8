#include "cli/common_options.hpp"

#include "cli/cli_error.hpp"
#include "cli/exit_codes.hpp"
#include "typed/gpu_probe.hpp"

#include <iostream>

namespace lookback::cli {

void add_common_options(po::options_description& desc, common_options& common) {
  desc.add_options()
      ("help,h", "show this help")
      ("backend", po::value(&common.backend)->default_value("auto"), "auto | gpu | cpu")
      ("verify", po::bool_switch(&common.verify), "also run the CUB equivalent on the GPU, compare, print both times")
      ("dtype", po::value(&common.dtype), "element type of raw (non-.npy) input: int32, uint32, int64, uint64, float32, float64");
}

std::optional<po::variables_map> parse_options(const std::vector<std::string>& args, const po::options_description& desc,
                                               const std::string& usage, const po::options_description* hidden,
                                               const po::positional_options_description* positional) {
  po::options_description all;
  all.add(desc);
  if (hidden != nullptr) all.add(*hidden);
  po::command_line_parser parser(args);
  parser.options(all);
  if (positional != nullptr) parser.positional(*positional);
  po::variables_map vm;
  try {
    po::store(parser.run(), vm);
    if (vm.count("help") != 0) {
      std::cout << "usage: " << usage << "\n\n" << desc << "\n";
      return std::nullopt;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw cli_error(exit_code::usage, std::string(e.what()) + " (see --help)");
  }
  return vm;
}

backend resolve_backend(const common_options& common) {
  if (common.backend != "auto" && common.backend != "gpu" && common.backend != "cpu")
    throw cli_error(exit_code::usage, "--backend must be auto, gpu or cpu, not '" + common.backend + "'");
  if (common.backend == "cpu" && !common.verify) return backend::cpu;
  const auto missing = typed::gpu_unavailable_reason();
  if (common.verify && missing) throw cli_error(exit_code::unavailable, "--verify needs a GPU: " + *missing);
  if (common.backend == "cpu") return backend::cpu;
  if (!missing) return backend::gpu;
  if (common.backend == "gpu") throw cli_error(exit_code::unavailable, "--backend gpu: " + *missing);
  std::cerr << "lookback: notice: " << *missing << "; using the CPU reference backend\n";
  return backend::cpu;
}

typed::op_kind parse_op_option(const std::string& text) {
  const auto op = typed::parse_op(text);
  if (!op) throw cli_error(exit_code::usage, "--op must be sum, min or max, not '" + text + "'");
  return *op;
}

}  // namespace lookback::cli
