#include "cli/array_stream.hpp"

#include "cli/array_ops.hpp"
#include "cli/cli_error.hpp"
#include "cli/device_memory.hpp"
#include "cli/exit_codes.hpp"
#include "typed/stream_ops.hpp"

#include <cmath>
#include <cstdlib>

namespace lookback::cli {
namespace {

pipelines::stream_options options_for(const stream_settings& s, bool gpu) {
  pipelines::stream_options o;
  if (gpu) {
    // What an allocation can get now (free memory and the pool's unused blocks), less 5% for the
    // context and the pool's rounding, within the cap.
    const std::size_t available = device_memory_available() / 20 * 19;
    o.limits.device_bytes = s.caps.device_bytes != 0 ? std::min(s.caps.device_bytes, available) : available;
  }
  o.limits.host_bytes = s.caps.host_bytes;
  o.progress = s.progress;
  return o;
}

/// Runs the GPU or CPU form; with --verify the GPU's, checked, and then the CPU's when it is the
/// chosen backend (its output replaces the GPU's at the same offsets).
template <class Gpu, class Cpu>
streamed run_checked(const stream_settings& s, const std::string& what, Gpu&& gpu, Cpu&& cpu) {
  streamed out;
  if (s.b == backend::cpu && !s.verify) {
    const typed::stream_outcome r = cpu(options_for(s, false));
    out.plan = r.plan;
    out.kept = r.kept;
    out.sorted = r.sorted;
    return out;
  }
  typed::stream_request request;
  request.options = options_for(s, true);
  request.verify = s.verify;
  const typed::stream_outcome r = gpu(request);
  out.plan = r.plan;
  out.kept = r.kept;
  out.sorted = r.sorted;
  if (r.checked) {
    out.verified = verification{r.checked->lookback_ms, r.checked->cub_ms, r.checked->mismatch, r.checked->exact};
    check_verification(*out.verified, what);
  }
  if (s.b == backend::cpu) {
    const typed::stream_outcome c = cpu(options_for(s, false));
    out.kept = c.kept;
    out.sorted = c.sorted;
  }
  return out;
}

template <class Gpu, class Cpu>
streamed run(const stream_settings& s, const std::string& what, Gpu&& gpu, Cpu&& cpu) {
  try {
    return run_checked(s, what, gpu, cpu);
  } catch (const pipelines::stream_error& e) {
    if (e.what_failed() != pipelines::stream_error::kind::budget) throw;
    // A cap the user set is a usage problem; a device or host that has too little free is the system's.
    const bool capped = s.caps.device_bytes != 0 || s.caps.host_bytes != 0;
    throw cli_error(capped ? exit_code::usage : exit_code::os_error, e.what());
  }
}

}  // namespace

streamed reduce_streamed(io::dtype type, typed::op_kind op, pipelines::source& in, void* result,
                         const stream_settings& s, bool deterministic) {
  return run(
      s, "reduce " + std::string(typed::op_name(op)),
      [&](const typed::stream_request& r) { return typed::reduce_stream(type, op, in, result, r, deterministic); },
      [&](const pipelines::stream_options& o) { return typed::reduce_stream_cpu(type, op, in, result, o, deterministic); });
}

streamed scan_streamed(const typed::scan_spec& spec, pipelines::source& in, pipelines::sink& out, const stream_settings& s) {
  return run(
      s, describe(spec) + " scan",
      [&](const typed::stream_request& r) { return typed::scan_stream(spec, in, out, r); },
      [&](const pipelines::stream_options& o) { return typed::scan_stream_cpu(spec, in, out, o); });
}

streamed histogram_streamed(const typed::histogram_spec& spec, pipelines::source& samples, void* counts,
                            const stream_settings& s) {
  return run(
      s, "histogram", [&](const typed::stream_request& r) { return typed::histogram_stream(spec, samples, counts, r); },
      [&](const pipelines::stream_options& o) { return typed::histogram_stream_cpu(spec, samples, counts, o); });
}

streamed compact_streamed(const typed::select_spec& spec, pipelines::source& values, pipelines::source* flags,
                          pipelines::sink& out, const stream_settings& s) {
  return run(
      s, "compact " + describe(spec), [&](const typed::stream_request& r) { return typed::select_stream(spec, values, flags, out, r); },
      [&](const pipelines::stream_options& o) { return typed::select_stream_cpu(spec, values, flags, out, o); });
}

streamed sort_streamed(const typed::sort_spec& spec, pipelines::source& keys, pipelines::source* values,
                       pipelines::sink& keys_out, pipelines::sink* values_out, const stream_settings& s,
                       const std::filesystem::path& spill_directory) {
  return run(
      s, "sort " + describe(spec),
      [&](const typed::stream_request& r) {
        return typed::sort_stream(spec, keys, values, keys_out, values_out, r, spill_directory);
      },
      [&](const pipelines::stream_options& o) {
        return typed::sort_stream_cpu(spec, keys, values, keys_out, values_out, o, spill_directory);
      });
}

std::string describe_plan(const pipelines::chunk_plan& plan, std::size_t item_bytes) {
  if (!plan.streamed()) return "in-core";
  return pipelines::describe(plan) + " items (" +
         byte_size_text(static_cast<std::size_t>(plan.chunk_items) * item_bytes) + ")";
}

std::optional<std::size_t> parse_byte_size(const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(value) || value <= 0) return std::nullopt;
  const std::string unit(end);
  double scale = 0;
  if (unit.empty() || unit == "B")
    scale = 1;
  else if (unit == "KiB" || unit == "K" || unit == "k")
    scale = 1024.0;
  else if (unit == "MiB" || unit == "M")
    scale = 1024.0 * 1024;
  else if (unit == "GiB" || unit == "G")
    scale = 1024.0 * 1024 * 1024;
  else if (unit == "TiB" || unit == "T")
    scale = 1024.0 * 1024 * 1024 * 1024;
  else if (unit == "KB" || unit == "kB")
    scale = 1e3;
  else if (unit == "MB")
    scale = 1e6;
  else if (unit == "GB")
    scale = 1e9;
  else if (unit == "TB")
    scale = 1e12;
  else
    return std::nullopt;
  const double bytes = value * scale;
  if (bytes < 1 || bytes > 1.8e19) return std::nullopt;
  return static_cast<std::size_t>(bytes);
}

}  // namespace lookback::cli
