#pragma once
// Reduce, scan, histogram, compaction and sort of loaded arrays on the chosen backend, shared by their
// commands and the demo.
#include "cli/array_stream.hpp"
#include "cli/backend.hpp"
#include "cli/gpu_run.hpp"
#include "io/array.hpp"
#include "typed/histogram_ops.hpp"
#include "typed/select_ops.hpp"
#include "typed/sort_ops.hpp"
#include "typed/typed_ops.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace lookback::cli {

struct op_result {
  io::host_array output;
  std::optional<verification> verified;  // with --verify
};

/// The reduction as a one-element array of the input's dtype. A --verify mismatch throws (exit code
/// software) before anything is written.
op_result reduce_array(const io::host_array& input, typed::op_kind op, backend b, bool verify,
                       const memory_caps& caps = {});

/// The scan, with the input's dtype and shape; a --verify mismatch throws likewise.
op_result scan_array(const io::host_array& input, const typed::scan_spec& spec, backend b, bool verify,
                     const memory_caps& caps = {});

/// The even histogram of `samples` per `spec` (counter dtype, num_bins elements); a --verify mismatch
/// throws likewise.
op_result histogram_array(const io::host_array& samples, const typed::histogram_spec& spec, backend b, bool verify,
                          const memory_caps& caps = {});

/// The items of `values` (in C order) that `spec` keeps, as a 1-D array of their dtype; kept by `flags`
/// (one 0 or 1 per value) when spec.flagged. A --verify mismatch throws likewise.
op_result compact_array(const io::host_array& values, const typed::select_spec& spec,
                        const std::vector<std::uint8_t>& flags, backend b, bool verify, const memory_caps& caps = {});

struct sort_result {
  io::host_array keys;
  std::optional<io::host_array> values;   // when values were given
  std::optional<verification> verified;  // with --verify
};

/// `keys` (in C order) stably sorted per `spec` into a 1-D array of their dtype, and `values` (the keys'
/// shape, spec.value_bytes wide, or null) moved with their keys into another. A --verify mismatch throws
/// likewise.
sort_result sort_arrays(const io::host_array& keys, const io::host_array* values, const typed::sort_spec& spec,
                        backend b, bool verify);

/// Counts of either counter dtype as uint64.
std::vector<std::uint64_t> widen(const io::host_array& counts);

/// "inclusive max", "exclusive sum"
std::string describe(const typed::scan_spec& spec);

/// "gt:5", "nonzero", "by flags"
std::string describe(const typed::select_spec& spec);

/// "ascending", "descending on bits 8:16"
std::string describe(const typed::sort_spec& spec);

}  // namespace lookback::cli
