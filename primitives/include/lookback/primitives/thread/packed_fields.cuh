#pragma once
// N unsigned fields of Bits bits each, packed into 32-bit registers: a thread that must hold many small
// numbers across a barrier (a radix pass's slots and digits) spends a register on 2 or 4 of them, not
// one each. Indices must be compile-time constants after unrolling, so that every access becomes a bit
// field insert or extract on a named register rather than local memory.
namespace lookback::thread {

template <int Bits, int N>
struct packed_fields {
  static_assert(32 % Bits == 0, "fields tile a register");
  static constexpr int per_word = 32 / Bits;
  static constexpr unsigned field_mask = Bits == 32 ? ~0u : (1u << Bits) - 1u;
  unsigned words[(N + per_word - 1) / per_word] = {};

  /// `value` must fit in Bits bits.
  __device__ __forceinline__ void set(int i, unsigned value) {
    const int shift = i % per_word * Bits;
    unsigned& w = words[i / per_word];
    w = (w & ~(field_mask << shift)) | (value << shift);
  }
  [[nodiscard]] __device__ __forceinline__ unsigned get(int i) const {
    return (words[i / per_word] >> (i % per_word * Bits)) & field_mask;
  }
};

}  // namespace lookback::thread
