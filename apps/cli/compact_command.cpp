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
#include "typed/select_ops.hpp"

#include <algorithm>
#include <iostream>
#include <optional>
#include <vector>

namespace lookback::cli {
namespace {

/// The flags file's items as one 0 or 1 per value, converted chunk by chunk as the pipeline reads
/// them. The flags must have the values' shape: NumPy's rule for a boolean mask, so a mask means here
/// what it means in x[mask].
class nonzero_flags final : public pipelines::source {
 public:
  explicit nonzero_flags(const array_file& file) : file_(file.source()), width_(io::dtype_size(file.type)) {}
  std::int64_t size() const override { return file_.size(); }
  std::size_t item_bytes() const override { return 1; }
  void read(std::int64_t first, std::int64_t count, void* dst) override {
    // In pieces of at most 32 KiB: a whole chunk's raw flags (up to 8 bytes an item) would sit outside
    // the memory limit, whose plan counts the one byte a flag this source hands over.
    constexpr std::int64_t piece = std::int64_t{1} << 12;
    std::vector<std::byte> raw(static_cast<std::size_t>(std::min(count, piece)) * width_);
    auto* out = static_cast<std::uint8_t*>(dst);
    for (std::int64_t at = 0; at < count; at += piece) {
      const std::int64_t n = std::min(piece, count - at);
      file_.read(first + at, n, raw.data());
      // An integer is nonzero exactly when one of its bytes is, whatever its width and signedness.
      for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
        const std::byte* item = raw.data() + i * width_;
        out[static_cast<std::size_t>(at) + i] =
            std::any_of(item, item + width_, [](std::byte b) { return b != std::byte{0}; }) ? 1 : 0;
      }
    }
  }

 private:
  pipelines::file_source file_;
  std::size_t width_;
};

// A float's sign bit makes -0.0 look nonzero byte by byte; floats are not flags anyway.
constexpr const char* supported_flag_dtypes = "(supported: bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64)";

void check_flags(const array_file& flags, const array_file& values) {
  if (io::is_floating(flags.type))
    throw cli_error(exit_code::data_error, flags.path.string() + ": flags dtype " + std::string(io::dtype_name(flags.type)) +
                                               " is not supported " + supported_flag_dtypes);
  if (flags.shape != values.shape)
    throw cli_error(exit_code::data_error, flags.path.string() + ": flags of shape " + io::shape_string(flags.shape) +
                                               " do not match the values' shape " + io::shape_string(values.shape) +
                                               " in " + values.path.string());
}

}  // namespace

int compact_command(const args& a) {
  common_options common;
  memory_options memory;
  launch_options launching;
  std::string input, output, flags_path, flags_dtype, predicate;
  po::options_description desc("compact options");
  desc.add_options()
      ("input,i", po::value(&input)->required(), "values (.npy, or raw with --dtype)")
      ("output,o", po::value(&output)->required(), "the kept values, 1-D (.npy, or raw bytes for any other name)")
      ("flags", po::value(&flags_path), "keep where this array (bool or integer, the values' shape) is nonzero")
      ("flags-dtype", po::value(&flags_dtype), "element type of raw (non-.npy) --flags")
      ("predicate", po::value(&predicate), "keep values that are: nonzero | gt:V | ge:V | lt:V | le:V | eq:V | ne:V");
  add_common_options(desc, common);
  add_memory_options(desc, memory);
  add_launch_options(desc, launching);
  const auto vm = parse_options(a, desc,
                                "lookback compact -i X.npy -o Y.npy (--flags F.npy [--flags-dtype T] | --predicate P) "
                                "[--gpus N | --distributed]");
  if (!vm) return exit_code::ok;

  const bool by_flags = vm->count("flags") != 0;
  if (by_flags == (vm->count("predicate") != 0))
    throw cli_error(exit_code::usage, by_flags ? "give --flags or --predicate, not both"
                                               : "which values to keep? give --flags F.npy or --predicate P");
  if (vm->count("flags-dtype") != 0 && !by_flags) throw cli_error(exit_code::usage, "--flags-dtype applies to --flags only");
  // Asked for on the command line, a float flags dtype is a usage mistake, found before any file is read.
  if (const auto t = io::parse_dtype(flags_dtype); t && io::is_floating(*t))
    throw cli_error(exit_code::usage, "--flags-dtype: " + flags_dtype + " is not a flags dtype " + supported_flag_dtypes);
  io::refuse_same_file(input, output);
  if (by_flags) io::refuse_same_file(flags_path, output);
  const backend b = resolve_backend(common, launching, memory);
  launch l(launching, b);
  const array_file values(input, common.dtype);
  require_numeric(input, values.type);

  typed::select_spec spec{values.type, by_flags, typed::compare_kind::nonzero, {}};
  std::optional<array_file> flags;
  if (by_flags) {
    flags.emplace(flags_path, flags_dtype, "--flags-dtype");
    check_flags(*flags, values);
  } else if (const auto problem = typed::parse_predicate(values.type, predicate, spec)) {
    throw cli_error(exit_code::usage, "--predicate: " + *problem);
  }

  const std::size_t width = io::dtype_size(values.type);
  l.ready("compact", a, input_signature(values) + (flags ? input_signature(*flags) : std::string()));
  shared_output out(l, output, values.type, {values.size()}, common.verify);
  pipelines::file_source source = values.source();
  std::optional<nonzero_flags> flag_source;
  if (flags) flag_source.emplace(*flags);
  dist_outcome checks;  // the single-process path fills its CUB check alone
  std::string how;
  if (l.active()) {
    checks = compact_distributed(l, spec, source, flag_source ? &*flag_source : nullptr, out,
                                 stream_settings_for(b, common, memory, nullptr));
    how = describe_run(l, checks, width, false);
  } else {
    progress_bar bar("lookback compact", values.size(), static_cast<std::uint64_t>(values.size()) * width >= long_run_bytes);
    pipelines::file_sink sink = out.sink();
    const streamed r = compact_streamed(spec, source, flag_source ? &*flag_source : nullptr, sink,
                                        stream_settings_for(b, common, memory, &bar));
    out.commit({r.kept});
    how = describe_plan(r.plan, width);
    checks.kept = r.kept;
    checks.cub = r.verified;
  }
  if (!l.root()) return exit_code::ok;
  std::cout << "compact " << describe(spec) << ": kept " << checks.kept << " of " << values.size() << " "
            << io::dtype_name(values.type) << " elements -> " << output << " (" << how << ")\n";
  print_checks(std::cout, l, checks, "compact " + describe(spec));
  return exit_code::ok;
}

}  // namespace lookback::cli
