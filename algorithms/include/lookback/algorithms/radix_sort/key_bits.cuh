#pragma once
// Keys as unsigned bit patterns whose unsigned order is the keys' order (CUB's "twiddling"): unsigned
// integers as they are, signed integers with the sign bit flipped, floating point with the sign bit
// flipped when clear and every bit flipped when set. NaNs sort by bit pattern (negative NaNs first,
// positive ones last). The two zeros are equal keys and keep their input order, as in
// cub::DeviceRadixSort (CUDA 13.0, radix_rank_sort_operations.cuh, ProcessFloatMinusZero), whose
// choice of their shared pattern we copy because a bit range shows it: ascending sorts count -0.0 as
// +0.0, descending ones +0.0 as -0.0 (CUB compares the inverted pattern with -0.0's ascending one).
// Descending sorts invert the pattern; equal keys stay equal, so the sort stays stable.
#include <cuda_runtime_api.h>  // __host__ __device__ for host compilers too

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace lookback::radix {

template <class Key>
inline constexpr bool sortable_key =
    std::is_same_v<Key, std::uint8_t> || std::is_same_v<Key, std::uint16_t> || std::is_same_v<Key, std::uint32_t> ||
    std::is_same_v<Key, std::int32_t> || std::is_same_v<Key, float> || std::is_same_v<Key, std::uint64_t> ||
    std::is_same_v<Key, std::int64_t> || std::is_same_v<Key, double> || std::is_same_v<Key, unsigned long long> ||
    std::is_same_v<Key, long long>;

template <class Key>
using bits_t = std::conditional_t<sizeof(Key) == 1, std::uint8_t,
                                  std::conditional_t<sizeof(Key) == 2, std::uint16_t,
                                                     std::conditional_t<sizeof(Key) == 4, std::uint32_t, std::uint64_t>>>;

/// The pattern whose unsigned order is the key's order, from the key's own bits.
template <class Key, bool Descending>
__host__ __device__ __forceinline__ bits_t<Key> ordered_pattern(bits_t<Key> b) {
  using bits = bits_t<Key>;
  constexpr bits sign = bits{1} << (8 * sizeof(Key) - 1);
  if constexpr (std::is_floating_point_v<Key>) {
    if constexpr (Descending) {
      if (b == 0) b = sign;  // +0.0 as -0.0
    } else {
      if (b == sign) b = 0;  // -0.0 as +0.0
    }
    b ^= (b & sign) ? static_cast<bits>(~bits{0}) : sign;
  } else if constexpr (std::is_signed_v<Key>) {
    b ^= sign;
  }
  if constexpr (Descending) b = static_cast<bits>(~b);
  return b;
}

template <class Key, bool Descending>
__host__ __device__ __forceinline__ bits_t<Key> ordered_bits(Key key) {
  bits_t<Key> b;
  memcpy(&b, &key, sizeof(Key));
  return ordered_pattern<Key, Descending>(b);
}

/// The key bits whose ordered pattern is `ordered` (one of them, where the two zeros share it). A
/// digit pass fills the end of its last tile with the key of the largest pattern.
template <class Key, bool Descending>
__host__ __device__ __forceinline__ bits_t<Key> key_bits_of(bits_t<Key> ordered) {
  using bits = bits_t<Key>;
  constexpr bits sign = bits{1} << (8 * sizeof(Key) - 1);
  bits b = ordered;
  if constexpr (Descending) b = static_cast<bits>(~b);
  if constexpr (std::is_floating_point_v<Key>) {
    b ^= (b & sign) ? sign : static_cast<bits>(~bits{0});
  } else if constexpr (std::is_signed_v<Key>) {
    b ^= sign;
  }
  return b;
}

inline constexpr int radix_bits = 8;
inline constexpr int radix_digits = 1 << radix_bits;

/// Pass p's digit starts at bit begin_bit + 8p and is 8 bits wide, or what is left of [begin, end).
__host__ __device__ __forceinline__ int pass_shift(int pass, int begin_bit) { return begin_bit + radix_bits * pass; }
__host__ __device__ __forceinline__ int pass_width(int pass, int begin_bit, int end_bit) {
  const int left = end_bit - pass_shift(pass, begin_bit);
  return left < radix_bits ? left : radix_bits;
}

/// The digit of `bits` at [shift, shift + width), width at most 8.
template <class Bits>
__host__ __device__ __forceinline__ unsigned digit_of(Bits bits, int shift, int width) {
  return static_cast<unsigned>(bits >> shift) & ((1u << width) - 1u);
}

}  // namespace lookback::radix
