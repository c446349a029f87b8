#pragma once
// The array commands across the ranks of a launch (--gpus, --distributed): each rank reads its slice
// of the input with pread (share_begin/share_size of lookback::dist), runs the distributed algorithm,
// and writes its part of the result at its offset of the shared output. With --verify the root then
// runs the single-process command on the whole input (on GPUs checked against CUB as before) and
// compares, before anything is renamed into place; it holds the input and both results in memory.
#include "cli/array_files.hpp"
#include "cli/array_stream.hpp"
#include "cli/launch.hpp"
#include "cli/shared_output.hpp"

#include <lookback/pipelines/source.hpp>

#include <cstdint>
#include <filesystem>
#include <ostream>
#include <optional>
#include <vector>

namespace lookback::cli {

struct dist_outcome {
  std::int64_t kept = 0;   // compaction: items kept over all ranks
  std::int64_t moved = 0;  // sort: items that changed rank
  bool verified = false;   // --verify: equal to the single-process result
  std::optional<verification> cub;  // --verify on GPUs: the single-process run against CUB's
};

/// `s.caps.host_bytes`, when set, bounds what each process holds (its ranks' slices and results).
dist_outcome reduce_distributed(launch& l, io::dtype type, typed::op_kind op, pipelines::source& in, void* result,
                                const stream_settings& s);
dist_outcome scan_distributed(launch& l, const typed::scan_spec& spec, pipelines::source& in, shared_output& out,
                              const std::vector<std::int64_t>& shape, const stream_settings& s);
dist_outcome histogram_distributed(launch& l, const typed::histogram_spec& spec, pipelines::source& samples,
                                   void* counts, const stream_settings& s);
dist_outcome compact_distributed(launch& l, const typed::select_spec& spec, pipelines::source& values,
                                 pipelines::source* flags, shared_output& out, const stream_settings& s);
dist_outcome sort_distributed(launch& l, const typed::sort_spec& spec, pipelines::source& keys, pipelines::source* values,
                              shared_output& keys_out, shared_output* values_out, io::dtype value_type,
                              const stream_settings& s, const std::filesystem::path& spill_directory);

/// What the ranks compare of an input (launch::ready): its dtype and shape.
std::string input_signature(const array_file& f);

/// The summary's tail: "3 ranks over MPI on the CPU", and for a sort the exchange's volume.
std::string describe_run(const launch& l, const dist_outcome& o, std::size_t item_bytes, bool sort);

/// The --verify lines of a run: the single-process run against CUB's (o.cub, which the single-process
/// path fills alone), then "verify sort ascending: 3 ranks over MPI on the CPU equal the single-process run".
void print_checks(std::ostream& out, const launch& l, const dist_outcome& o, const std::string& what);

}  // namespace lookback::cli
