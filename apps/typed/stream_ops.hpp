#pragma once
// Reduce, scan, histogram and compaction of run-time dtypes streamed from a source (a file or a host
// array) through lookback::pipelines, on the GPU (with --verify, CUB run on every chunk beside ours
// and compared) or on the CPU in the same chunks. One chunk is the in-core run; every array command
// takes this path.
#include "typed/compare.hpp"
#include "typed/histogram_ops.hpp"
#include "typed/select_ops.hpp"
#include "typed/sort_ops.hpp"
#include "typed/typed_ops.hpp"

#include <lookback/pipelines/chunk_plan.hpp>
#include <lookback/pipelines/sink.hpp>
#include <lookback/pipelines/sort/msd_sort.hpp>
#include <lookback/pipelines/source.hpp>
#include <lookback/pipelines/stream_options.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>

namespace lookback::typed {

struct stream_request {
  pipelines::stream_options options;  // budgets, plan limits, progress
  bool verify = false;                // GPU only: CUB on every chunk, compared
};

struct chunk_check {
  float lookback_ms = 0;  // summed over chunks, each the median of 9 runs after 2 warm-ups
  float cub_ms = 0;
  std::optional<typed::mismatch> mismatch;  // the first, its index counted from the start of the input
  bool exact = false;  // compared bit for bit with the CPU's deterministic association (CUB only timed)
};

struct stream_outcome {
  pipelines::chunk_plan plan;
  std::optional<chunk_check> checked;  // with verify
  std::int64_t kept = 0;               // compaction
  pipelines::sort_report sorted;       // sort: in-core or external, its buckets and spill
};

/// *result (one element of `type`) = the reduction of every item; `deterministic`: in
/// lookback::deterministic's association (chunks at window multiples), --verify exact against the CPU.
stream_outcome reduce_stream(io::dtype type, op_kind op, pipelines::source& in, void* result, const stream_request& r,
                             bool deterministic = false);
/// spec.deterministic as for reduce_stream.
stream_outcome scan_stream(const scan_spec& spec, pipelines::source& in, pipelines::sink& out, const stream_request& r);
stream_outcome reduce_stream_deterministic(io::dtype type, op_kind op, pipelines::source& in, void* result,
                                           const stream_request& r);
stream_outcome scan_stream_deterministic(const scan_spec& spec, pipelines::source& in, pipelines::sink& out,
                                         const stream_request& r);
/// h_counts: spec.num_bins counters of spec.counter.
stream_outcome histogram_stream(const histogram_spec& spec, pipelines::source& samples, void* h_counts,
                                const stream_request& r);
/// flags (one uint8 per value, 0 or 1) when spec.flagged, else null.
stream_outcome select_stream(const select_spec& spec, pipelines::source& values, pipelines::source* flags,
                             pipelines::sink& out, const stream_request& r);

/// Sorts keys (and values; both value pointers null for keys only) into keys_out (values_out): one
/// in-core sort, or MSD buckets spilled to host memory or to a file in spill_directory.
stream_outcome sort_stream(const sort_spec& spec, pipelines::source& keys, pipelines::source* values,
                           pipelines::sink& keys_out, pipelines::sink* values_out, const stream_request& r,
                           const std::filesystem::path& spill_directory);

/// The CPU references in the same chunks, within the host budget alone (verify does not apply).
stream_outcome reduce_stream_cpu(io::dtype type, op_kind op, pipelines::source& in, void* result,
                                 const pipelines::stream_options& o, bool deterministic = false);
stream_outcome scan_stream_cpu(const scan_spec& spec, pipelines::source& in, pipelines::sink& out,
                               const pipelines::stream_options& o);
stream_outcome histogram_stream_cpu(const histogram_spec& spec, pipelines::source& samples, void* h_counts,
                                    const pipelines::stream_options& o);
stream_outcome select_stream_cpu(const select_spec& spec, pipelines::source& values, pipelines::source* flags,
                                 pipelines::sink& out, const pipelines::stream_options& o);
/// The same buckets as sort_stream, each sorted by sort_cpu, within the host budget.
stream_outcome sort_stream_cpu(const sort_spec& spec, pipelines::source& keys, pipelines::source* values,
                               pipelines::sink& keys_out, pipelines::sink* values_out, const pipelines::stream_options& o,
                               const std::filesystem::path& spill_directory);

}  // namespace lookback::typed
