#include "cli/common_options.hpp"

#include "cli/array_stream.hpp"
#include "cli/cli_error.hpp"
#include "cli/exit_codes.hpp"
#include "cli/progress_bar.hpp"
#include "typed/gpu_probe.hpp"

#include <iostream>
#include <string>
#include <vector>

namespace lookback::cli {

void add_common_options(po::options_description& desc, common_options& common) {
  desc.add_options()
      ("help,h", "show this help")
      ("backend", po::value(&common.backend)->default_value("auto"), "auto | gpu | cpu")
      ("verify", po::bool_switch(&common.verify), "also run the CUB equivalent on the GPU, compare, print both times")
      ("dtype", po::value(&common.dtype),
       "element type of raw (non-.npy) input: int32, uint32, int64, uint64, float32, float64; sort keys and "
       "histogram samples also uint8, uint16");
}

void add_memory_options(po::options_description& desc, memory_options& memory) {
  desc.add_options()
      ("device-memory-limit", po::value(&memory.device),
       "most device memory to take (64MiB, 2GiB, 0.5GB...; default: what is free); larger inputs stream in chunks")
      ("host-memory-limit", po::value(&memory.host),
       "most host memory for staging and buffers (default: a quarter of the machine's)");
}

memory_caps parse_memory_options(const memory_options& memory) {
  memory_caps caps;
  const auto parse = [](const std::string& text, const char* option) -> std::size_t {
    if (text.empty()) return 0;
    const auto bytes = parse_byte_size(text);
    if (!bytes)
      throw cli_error(exit_code::usage, std::string(option) + ": '" + text +
                                            "' is not a size (a positive number with B, KiB, MiB, GiB, TiB, KB, MB, GB or TB)");
    return *bytes;
  };
  caps.device_bytes = parse(memory.device, "--device-memory-limit");
  caps.host_bytes = parse(memory.host, "--host-memory-limit");
  return caps;
}

stream_settings stream_settings_for(backend b, const common_options& common, const memory_options& memory,
                                    progress_bar* bar) {
  stream_settings s;
  s.b = b;
  s.verify = common.verify;
  s.caps = parse_memory_options(memory);
  if (bar != nullptr) s.progress = [bar](std::int64_t done, std::int64_t) { bar->update(done); };
  return s;
}

std::optional<po::variables_map> parse_options(const std::vector<std::string>& args, const po::options_description& desc,
                                               const std::string& usage, const po::options_description* hidden,
                                               const po::positional_options_description* positional) {
  po::options_description all;
  all.add(desc);
  if (hidden != nullptr) all.add(*hidden);
  // Without positional options of its own, a command gathers stray words here to refuse them: Boost
  // would otherwise drop them without a word.
  constexpr const char* stray = "lookback-stray-argument";
  po::positional_options_description strays;
  if (positional == nullptr) {
    all.add_options()(stray, po::value<std::vector<std::string>>());
    strays.add(stray, -1);
  }
  po::command_line_parser parser(args);
  // Options spelt out in full: Boost would take a prefix (--di for --distributed), which the launch,
  // reading the words before Boost does, would not see.
  parser.style(po::command_line_style::default_style & ~po::command_line_style::allow_guessing);
  parser.options(all);
  parser.positional(positional != nullptr ? *positional : strays);
  po::variables_map vm;
  try {
    po::store(parser.run(), vm);
    if (vm.count(stray) != 0)
      throw cli_error(exit_code::usage,
                      "unexpected argument '" + vm[stray].as<std::vector<std::string>>().front() + "' (see --help)");
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

void add_launch_options(po::options_description& desc, launch_options& launching) {
  desc.add_options()
      ("gpus", po::value(&launching.gpus),
       "N | all: split the input across this machine's first N GPUs (one process, NCCL between the GPUs)")
      ("distributed", po::bool_switch(&launching.distributed),
       "run as one rank of an MPI job (mpirun -np P lookback ...): each rank on the GPU of its local rank, or on the "
       "CPU with --backend cpu");
}

backend resolve_backend(const common_options& common, const launch_options& launching, const memory_options& memory) {
  if (launching.requested() && !memory.device.empty())
    throw cli_error(exit_code::usage, std::string("--device-memory-limit does not apply to ") +
                                          (launching.distributed ? "--distributed" : "--gpus") +
                                          " (each rank holds its slice on its GPU); leave it out");
  if (launching.gpus.empty() || common.backend == "cpu" || (common.backend != "auto" && common.backend != "gpu")) {
    if (launching.distributed && common.backend == "cpu") return backend::cpu;
    return resolve_backend(common);  // --gpus with --backend cpu is refused by launch
  }
  if (const auto missing = typed::gpu_unavailable_reason()) throw cli_error(exit_code::unavailable, "--gpus: " + *missing);
  return backend::gpu;
}

void refuse_deterministic_launch(bool deterministic, const launch_options& launching) {
  if (deterministic && launching.requested())
    throw cli_error(exit_code::usage, std::string("--deterministic runs in one process, on one GPU or the CPU; leave out ") +
                                          (launching.distributed ? "--distributed" : "--gpus"));
}

typed::op_kind parse_op_option(const std::string& text) {
  const auto op = typed::parse_op(text);
  if (!op) throw cli_error(exit_code::usage, "--op must be sum, min or max, not '" + text + "'");
  return *op;
}

}  // namespace lookback::cli
