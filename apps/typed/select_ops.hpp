#pragma once
// Stream compaction for run-time value dtypes, ours and CUB's (each instantiation compiled once, in
// select_lookback.cu and select_cub.cu), plus the CPU reference. Items are kept by a comparison with a
// value ("gt:5") or by a uint8 flag array (nonzero keeps).
#include "io/dtype.hpp"
#include "typed/typed_ops.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace lookback::typed {

enum class compare_kind { nonzero, gt, ge, lt, le, eq, ne };

struct select_spec {
  io::dtype type = io::dtype::uint32;  // a numeric dtype (is_numeric)
  bool flagged = false;                // keep by flags instead of the comparison
  compare_kind compare = compare_kind::nonzero;
  scalar value;                        // of `type`; unused for nonzero
};

/// "nonzero", "gt", ... "ne", as predicates spell them.
std::string_view compare_name(compare_kind kind);

/// Parses "nonzero", "gt:V", "ge:V", "lt:V", "le:V", "eq:V" or "ne:V" with V a value of `type`; the
/// problem in words when it is not one of those.
std::optional<std::string> parse_predicate(io::dtype type, std::string_view text, select_spec& spec);

/// CUB-style temporary storage (null d_temp asks the size). *d_count receives the number kept.
void select(implementation impl, const select_spec& spec, void* d_temp, std::size_t& temp_bytes, const void* d_in,
            const std::uint8_t* d_flags, void* d_out, std::int64_t* d_count, std::int64_t n, cudaStream_t stream);
/// The CPU reference; returns the number kept.
std::int64_t select_cpu(const select_spec& spec, const void* in, const std::uint8_t* flags, void* out, std::int64_t n);

}  // namespace lookback::typed
