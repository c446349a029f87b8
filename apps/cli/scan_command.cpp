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

#include <iostream>

namespace lookback::cli {

int scan_command(const args& a) {
  common_options common;
  memory_options memory;
  launch_options launching;
  std::string input, output, op_text = "sum", init_text;
  bool inclusive = false, deterministic = false;
  po::options_description desc("scan options");
  desc.add_options()
      ("input,i", po::value(&input)->required(), "input array (.npy, or raw with --dtype)")
      ("output,o", po::value(&output)->required(), "output array (.npy, or raw bytes for any other name)")
      ("inclusive", po::bool_switch(&inclusive), "inclusive scan (default: exclusive)")
      ("op", po::value(&op_text)->default_value("sum"), "sum | min | max")
      ("init", po::value(&init_text), "initial value of an exclusive scan (default: the operator's identity)")
      ("deterministic", po::bool_switch(&deterministic),
       "the same bits on every run, GPU and CPU (a fixed association; --verify compares bit for bit with the CPU's)");
  add_common_options(desc, common);
  add_memory_options(desc, memory);
  add_launch_options(desc, launching);
  const auto vm = parse_options(a, desc, "lookback scan -i X.npy -o Y.npy [--inclusive] [--op sum|min|max] [--init V] [--deterministic] [--gpus N | --distributed]");
  if (!vm) return exit_code::ok;

  typed::scan_spec spec;
  spec.op = parse_op_option(op_text);
  spec.inclusive = inclusive;
  spec.deterministic = deterministic;
  const bool has_init = vm->count("init") != 0;
  if (inclusive && has_init) throw cli_error(exit_code::usage, "--init applies to exclusive scans only");
  io::refuse_same_file(input, output);
  refuse_deterministic_launch(deterministic, launching);
  const backend b = resolve_backend(common, launching, memory);
  launch l(launching, b);
  const array_file in(input, common.dtype);
  require_numeric(input, in.type);
  spec.type = in.type;
  spec.init = typed::identity(in.type, spec.op);
  if (has_init) {
    const auto init = typed::parse_scalar(in.type, init_text);
    if (!init)
      throw cli_error(exit_code::usage, "--init: '" + init_text + "' is not a valid " +
                                            std::string(io::dtype_name(in.type)) + " value");
    spec.init = *init;
  }
  const std::size_t width = io::dtype_size(in.type);
  l.ready("scan", a, input_signature(in));
  shared_output out(l, output, in.type, in.shape, common.verify);
  pipelines::file_source source = in.source();
  dist_outcome checks;  // the single-process path fills its CUB check alone
  std::string how;
  if (l.active()) {
    checks = scan_distributed(l, spec, source, out, in.shape, stream_settings_for(b, common, memory, nullptr));
    how = describe_run(l, checks, width, false);
  } else {
    progress_bar bar("lookback scan", in.size(), static_cast<std::uint64_t>(in.size()) * width >= long_run_bytes);
    pipelines::file_sink sink = out.sink();
    const streamed r = scan_streamed(spec, source, sink, stream_settings_for(b, common, memory, &bar));
    out.commit(in.shape);
    how = describe_plan(r.plan, width);
    checks.cub = r.verified;
  }
  if (!l.root()) return exit_code::ok;
  std::cout << describe(spec) << " scan of " << in.size() << " " << io::dtype_name(in.type) << " elements -> " << output
            << " (" << how << ")\n";
  print_checks(std::cout, l, checks, describe(spec) + " scan");
  return exit_code::ok;
}

}  // namespace lookback::cli
