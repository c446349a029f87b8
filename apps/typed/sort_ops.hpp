#pragma once
// Stable radix sort for run-time key dtypes, keys alone or carrying values, ours and CUB's (each
// instantiation compiled once, in sort_lookback.cu and sort_cub.cu), plus the CPU reference. Values
// of any 4- or 8-byte dtype move as raw words, so two value instantiations serve them all.
#include "io/dtype.hpp"
#include "typed/typed_ops.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace lookback::typed {

struct sort_spec {
  io::dtype key = io::dtype::uint32;  // a sort key dtype (is_sort_key)
  int value_bytes = 0;                // 0 (keys only), 4 or 8
  bool descending = false;
  int begin_bit = 0;  // [begin_bit, end_bit) of the keys' order-preserving bit pattern (key_bits.cuh)
  int end_bit = 32;
};

/// Keys: uint8, uint16, uint32, int32, float32, uint64, int64, float64.
bool is_sort_key(io::dtype type);
std::string sort_key_list();
/// Values: any dtype of 4 or 8 bytes.
bool is_sort_value(io::dtype type);
std::string sort_value_list();
/// The width of a key in bits: the default end_bit.
int key_bits(io::dtype key);

/// Parses "B:E" into spec's bit range (spec.key already set); the problem in words, naming --bits and
/// the key's width, when it is malformed or not inside the key.
std::optional<std::string> parse_bits(std::string_view text, sort_spec& spec);

/// Why `spec` cannot run (key dtype, value width, bit range), or empty when it can.
std::string sort_spec_problem(const sort_spec& spec);
/// Throws std::invalid_argument with sort_spec_problem's words unless the spec is valid.
void check_sort_spec(const sort_spec& spec);

/// A key of dtype `key` at `value`, in full precision, for mismatch reports.
std::string format_key(io::dtype key, const void* value);

/// CUB-style temporary storage (null d_temp asks the size). Values are ignored for keys-only specs.
void sort(implementation impl, const sort_spec& spec, void* d_temp, std::size_t& temp_bytes, const void* d_keys_in,
          void* d_keys_out, const void* d_values_in, void* d_values_out, std::int64_t n, cudaStream_t stream);
/// The CPU reference: a stable sort by each key's bit field, values following their keys.
void sort_cpu(const sort_spec& spec, const void* keys_in, void* keys_out, const void* values_in, void* values_out,
              std::int64_t n);

}  // namespace lookback::typed
