#pragma once
// Reduce and scan on type-erased arrays whose element type is known only at run time (from a file).
// Each (implementation, dtype, operator) instantiation is compiled once, in this library, and shared
// by the command, the tests and the benchmarks. Device functions follow CUB's two-phase temporary
// storage convention and never synchronise the host.
#include "io/dtype.hpp"

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace lookback::typed {

enum class op_kind { sum, min, max };
std::optional<op_kind> parse_op(std::string_view name);
std::string_view op_name(op_kind op);

enum class implementation { lookback, cub };
std::string_view implementation_name(implementation impl);

/// The element types reduce and scan accept: int32, uint32, int64, uint64, float32, float64.
bool is_numeric(io::dtype type);
std::string numeric_dtype_list();

/// A value of a run-time dtype (the exclusive scan's initial value).
struct scalar {
  io::dtype type = io::dtype::int32;
  std::array<std::byte, 8> bytes{};
};
/// Parses text as a value of `type`; nullopt when it is malformed or out of the type's range.
std::optional<scalar> parse_scalar(io::dtype type, std::string_view text);
scalar identity(io::dtype type, op_kind op);
/// The value of `type` stored at `value`.
scalar load_scalar(io::dtype type, const void* value);
std::string format_scalar(const scalar& value);
double to_double(const scalar& value);

struct scan_spec {
  io::dtype type = io::dtype::int32;
  op_kind op = op_kind::sum;
  bool inclusive = false;
  scalar init;                 // exclusive scans only
  bool deterministic = false;  // the streamed scans: lookback::deterministic's association (GPU and CPU)
};

void reduce(implementation impl, io::dtype type, op_kind op, void* d_temp, std::size_t& temp_bytes, const void* d_in,
            void* d_out, std::int64_t n, cudaStream_t stream);
/// lookback's reduction of a slice whose total is combined with others' (a rank's share of a scan):
/// from neutral_of, so a float slice of -0.0s totals -0.0 where reduce gives +0.0.
void reduce_slice(io::dtype type, op_kind op, void* d_temp, std::size_t& temp_bytes, const void* d_in, void* d_out,
                  std::int64_t n, cudaStream_t stream);
void scan(implementation impl, const scan_spec& spec, void* d_temp, std::size_t& temp_bytes, const void* d_in,
          void* d_out, std::int64_t n, cudaStream_t stream);

/// lookback's scan of one slice of a longer sequence from a carried prefix in device memory
/// (scan_carry.cuh): *d_prefix starts it, *d_total receives the prefix combined with the slice.
void scan_carried(const scan_spec& spec, void* d_temp, std::size_t& temp_bytes, const void* d_in, void* d_out,
                  const void* d_prefix, void* d_total, std::int64_t n, cudaStream_t stream);

/// CPU references (sequential, in the element type, wrapping as the GPU does).
void reduce_cpu(io::dtype type, op_kind op, const void* in, void* out, std::int64_t n);
void scan_cpu(const scan_spec& spec, const void* in, void* out, std::int64_t n);

/// The same references one chunk at a time, carrying the running value, so that a chunked run gives
/// the sequential result bit for bit: `running` starts at the identity (reduce, inclusive scan) or
/// the initial value (exclusive scan); `first` says no item has been seen yet (an inclusive scan's
/// first output is its first item, not identity op item: -0.0 stays -0.0).
void reduce_cpu_chunk(io::dtype type, op_kind op, const void* in, std::int64_t n, scalar& running);
void scan_cpu_chunk(const scan_spec& spec, const void* in, void* out, std::int64_t n, scalar& running, bool first);

}  // namespace lookback::typed
