#pragma once
// The array commands' one path: a source (a file's items read with pread, or an array in memory) ->
// the chunk pipeline on the chosen backend -> a sink (the temporary output file at each item's offset,
// or an array). In-core is the one-chunk plan; --device-memory-limit and --host-memory-limit bound
// the plan, and --verify compares each chunk with CUB's.
#include "cli/backend.hpp"
#include "cli/gpu_run.hpp"
#include "typed/histogram_ops.hpp"
#include "typed/select_ops.hpp"
#include "typed/sort_ops.hpp"
#include "typed/typed_ops.hpp"

#include <lookback/pipelines/chunk_plan.hpp>
#include <lookback/pipelines/sink.hpp>
#include <lookback/pipelines/sort/msd_sort.hpp>
#include <lookback/pipelines/source.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace lookback::cli {

/// What the options cap; zero: the default (the device's free memory, a quarter of the host's).
struct memory_caps {
  std::size_t device_bytes = 0;
  std::size_t host_bytes = 0;
};

struct stream_settings {
  backend b = backend::gpu;
  bool verify = false;
  memory_caps caps;
  /// Items done and all of them, for a progress bar; may be empty.
  std::function<void(std::int64_t, std::int64_t)> progress;
};

struct streamed {
  pipelines::chunk_plan plan;
  std::optional<verification> verified;  // with --verify (a mismatch throws before this returns)
  std::int64_t kept = 0;                 // compaction
  pipelines::sort_report sorted;         // sort
};

/// `deterministic`: lookback::deterministic's association (spec.deterministic for the scan).
streamed reduce_streamed(io::dtype type, typed::op_kind op, pipelines::source& in, void* result,
                         const stream_settings& s, bool deterministic = false);
streamed scan_streamed(const typed::scan_spec& spec, pipelines::source& in, pipelines::sink& out, const stream_settings& s);
streamed histogram_streamed(const typed::histogram_spec& spec, pipelines::source& samples, void* counts,
                            const stream_settings& s);
streamed compact_streamed(const typed::select_spec& spec, pipelines::source& values, pipelines::source* flags,
                          pipelines::sink& out, const stream_settings& s);
/// values and values_out both null for keys only; a spill file goes to spill_directory.
streamed sort_streamed(const typed::sort_spec& spec, pipelines::source& keys, pipelines::source* values,
                       pipelines::sink& keys_out, pipelines::sink* values_out, const stream_settings& s,
                       const std::filesystem::path& spill_directory);

/// "in-core", "streamed in 12 chunks of 16777216 items (64.0 MiB)"
std::string describe_plan(const pipelines::chunk_plan& plan, std::size_t item_bytes);

/// Parses "64MiB", "2GiB", "0.5GB", "1000000" (bytes); nullopt when malformed or not positive.
std::optional<std::size_t> parse_byte_size(const std::string& text);

}  // namespace lookback::cli
