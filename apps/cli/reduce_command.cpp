#include "cli/array_dist.hpp"
#include "cli/array_files.hpp"
#include "cli/array_stream.hpp"
#include "cli/array_ops.hpp"
#include "cli/cli_error.hpp"
#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/exit_codes.hpp"
#include "cli/progress_bar.hpp"
#include "io/atomic_file.hpp"
#include "typed/typed_ops.hpp"

#include <iostream>
#include <optional>

namespace lookback::cli {

int reduce_command(const args& a) {
  common_options common;
  memory_options memory;
  launch_options launching;
  std::string input, output, op_text = "sum";
  bool deterministic = false;
  po::options_description desc("reduce options");
  desc.add_options()
      ("input,i", po::value(&input)->required(), "input array (.npy, or raw with --dtype)")
      ("output,o", po::value(&output), "also write the result as a one-element array (.npy or raw)")
      ("op", po::value(&op_text)->default_value("sum"), "sum | min | max")
      ("deterministic", po::bool_switch(&deterministic),
       "the same bits on every run, GPU and CPU (a fixed association; --verify compares bit for bit with the CPU's)");
  add_common_options(desc, common);
  add_memory_options(desc, memory);
  add_launch_options(desc, launching);
  if (!parse_options(a, desc, "lookback reduce -i X.npy [--op sum|min|max] [-o R.npy] [--deterministic] [--gpus N | --distributed]"))
    return exit_code::ok;

  const typed::op_kind op = parse_op_option(op_text);
  if (!output.empty()) io::refuse_same_file(input, output);
  refuse_deterministic_launch(deterministic, launching);
  const backend b = resolve_backend(common, launching, memory);
  launch l(launching, b);
  const array_file in(input, common.dtype);
  require_numeric(input, in.type);
  const std::size_t width = io::dtype_size(in.type);
  io::host_array result{in.type, {1}, std::vector<std::byte>(width)};
  l.ready("reduce", a, input_signature(in));
  // The output is created before the work, so that an output that cannot be created costs no run.
  std::optional<array_output> out;
  l.on_root([&] {
    if (!output.empty()) out.emplace(output, in.type, result.shape);
  });
  if (l.active()) {
    pipelines::file_source source = in.source();
    const dist_outcome r = reduce_distributed(l, in.type, op, source, result.bytes.data(), stream_settings_for(b, common, memory, nullptr));
    l.on_root([&] {
      if (!out) return;
      out->sink().write(0, 1, result.bytes.data());
      out->commit(result.shape);
    });
    if (!l.root()) return exit_code::ok;
    std::cout << typed::format_scalar(typed::load_scalar(in.type, result.bytes.data())) << "\n"
              << "reduced on " << describe_run(l, r, width, false) << "\n";
    print_checks(std::cout, l, r, "reduce " + op_text);
    return exit_code::ok;
  }
  progress_bar bar("lookback reduce", in.size(), static_cast<std::uint64_t>(in.size()) * width >= long_run_bytes);
  pipelines::file_source source = in.source();
  const streamed r = reduce_streamed(in.type, op, source, result.bytes.data(), stream_settings_for(b, common, memory, &bar),
                                     deterministic);
  if (out) {
    pipelines::file_sink sink = out->sink();
    sink.write(0, 1, result.bytes.data());
    out->commit(result.shape);
  }
  std::cout << typed::format_scalar(typed::load_scalar(in.type, result.bytes.data())) << "\n";
  // The value alone on the first line stays easy to read from a script; a streamed run says so below.
  if (r.plan.streamed()) std::cout << describe_plan(r.plan, width) << "\n";
  if (r.verified)
    std::cout << verification_line(*r.verified, std::string(deterministic ? "deterministic " : "") + "reduce " + op_text) << "\n";
  return exit_code::ok;
}

}  // namespace lookback::cli
