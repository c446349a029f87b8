#pragma once
// The up-front histogram's shared counters, one set a pass. Counting is bound by the shared-memory
// pipe, not by DRAM: ncu of 2^28 uint32 keys on an H100 read L1/TEX 99% busy, DRAM 57%, warps waiting
// on the MIO queue half their time. Two layouts:
//  - block_digit_counters: one row of 256 words a pass for the whole block; a warp's 32 atomics land on
//    random banks and repeat a word whenever two lanes share a digit (skewed keys: every lane).
//  - lane_digit_counters: a copy of the counters for each lane (or pair of lanes), laid out so that
//    a lane only ever touches its own bank: a warp's atomic is one or two shared-memory wavefronts.
#include <lookback/algorithms/radix_sort/key_bits.cuh>
#include <lookback/primitives/warp/shuffle.cuh>

#include <cstddef>
#include <cstdint>

namespace lookback::radix {

template <int Passes>
struct block_digit_counters {
  static constexpr std::size_t shared_bytes = 0;  // static shared memory
  unsigned* words;

  __device__ __forceinline__ static block_digit_counters make(unsigned char*) {
    __shared__ unsigned counts[Passes * radix_digits];
    return {counts};
  }
  __device__ __forceinline__ void zero(int passes) {
    for (int i = threadIdx.x; i < passes * radix_digits; i += blockDim.x) words[i] = 0;
  }
  __device__ __forceinline__ void add(int pass, unsigned digit) { atomicAdd(&words[pass * radix_digits + digit], 1u); }
  /// After a block barrier: the block's counts added to d_counts[pass * 256 + digit].
  __device__ __forceinline__ void flush(int passes, unsigned* d_counts) {
    for (int i = threadIdx.x; i < passes * radix_digits; i += blockDim.x)
      if (words[i] != 0) atomicAdd(d_counts + i, words[i]);
  }
};

/// Copies a pass: lane l counts into copy l % Copies. Copies of 32 or 16 keep each lane on its own
/// bank (32) or its bank shared with one lane only, half the time (16).
template <int Passes, int Copies>
struct lane_digit_counters {
  static_assert(Copies == 16 || Copies == 32, "a bank a lane or a bank two lanes");
  static constexpr std::size_t shared_bytes = std::size_t{Passes} * radix_digits * Copies * sizeof(unsigned);
  unsigned* words;  // [pass][digit][copy]

  __device__ __forceinline__ static lane_digit_counters make(unsigned char* dynamic_shared) {
    return {reinterpret_cast<unsigned*>(dynamic_shared) + warp::lane_id() % Copies};
  }
  __device__ __forceinline__ void zero(int passes) {
    unsigned* all = words - warp::lane_id() % Copies;
    for (int i = threadIdx.x; i < passes * radix_digits * Copies; i += blockDim.x) all[i] = 0;
  }
  __device__ __forceinline__ void add(int pass, unsigned digit) {
    atomicAdd(&words[(pass * radix_digits + static_cast<int>(digit)) * Copies], 1u);
  }
  __device__ __forceinline__ void flush(int passes, unsigned* d_counts) {
    const unsigned* all = words - warp::lane_id() % Copies;
    for (int i = threadIdx.x; i < passes * radix_digits; i += blockDim.x) {
      const unsigned* copies = &all[i * Copies];
      unsigned total = 0;
      // Threads start at different copies, so that a warp's reads fall on different banks.
#pragma unroll
      for (int j = 0; j < Copies; ++j) total += copies[(j + i / 2) % Copies];
      if (total != 0) atomicAdd(d_counts + i, total);
    }
  }
};

}  // namespace lookback::radix
