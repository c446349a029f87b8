#pragma once
// The up-front histogram's shared counters, one set a pass. Counting is bound by the shared-memory
// pipe, not by DRAM: ncu of 2^28 uint32 keys on an H100 read L1/TEX 99% busy, DRAM 57%, warps waiting
// on the MIO queue half their time. Two layouts:
//  - block_digit_counters: one row of 256 words a pass for the whole block; a warp's 32 atomics land on
//    random banks and repeat a word whenever two lanes share a digit (skewed keys: every lane).
//  - lane_digit_counters: a copy of the counters for each lane (32 copies) or each two lanes (16),
//    laid out so that lane l touches only bank l (32), or bank l % 16 or l % 16 + 16 by the digit's
//    parity, shared with lane l ^ 16 alone (16): a warp's atomic is one or two wavefronts.
#include <lookback/algorithms/radix_sort/key_bits.cuh>
#include <lookback/primitives/warp/shuffle.cuh>

namespace lookback::radix {

template <int Passes>
struct block_digit_counters {
  static constexpr int dynamic_shared_bytes(int) { return 0; }  // static shared memory
  unsigned* rows;  // [pass][digit]

  __device__ __forceinline__ static block_digit_counters make(unsigned char*) {
    __shared__ unsigned counts[Passes * radix_digits];
    return {counts};
  }
  __device__ __forceinline__ void zero(int passes) {
    for (int i = threadIdx.x; i < passes * radix_digits; i += blockDim.x) rows[i] = 0;
  }
  __device__ __forceinline__ void add(int pass, unsigned digit) { atomicAdd(&rows[pass * radix_digits + digit], 1u); }
  /// After a block barrier: the block's counts added to d_counts[pass * 256 + digit].
  __device__ __forceinline__ void flush(int passes, unsigned* d_counts) {
    for (int i = threadIdx.x; i < passes * radix_digits; i += blockDim.x)
      if (rows[i] != 0) atomicAdd(d_counts + i, rows[i]);
  }
};

template <int Passes, int Copies>
struct lane_digit_counters {
  static_assert(Copies == 16 || Copies == 32, "a bank a lane, or a bank two lanes");
  /// Only the passes counted: a bit range that needs fewer passes leaves room for more blocks.
  static constexpr int dynamic_shared_bytes(int passes) {
    return passes * radix_digits * Copies * static_cast<int>(sizeof(unsigned));
  }
  unsigned* all;     // [pass][digit][copy]
  unsigned* column;  // all + this lane's copy

  __device__ __forceinline__ static lane_digit_counters make(unsigned char* dynamic_shared) {
    auto* counters = reinterpret_cast<unsigned*>(dynamic_shared);
    return {counters, counters + warp::lane_id() % Copies};
  }
  __device__ __forceinline__ void zero(int passes) {
    for (int i = threadIdx.x; i < passes * radix_digits * Copies; i += blockDim.x) all[i] = 0;
  }
  __device__ __forceinline__ void add(int pass, unsigned digit) {
    atomicAdd(&column[(pass * radix_digits + static_cast<int>(digit)) * Copies], 1u);
  }
  __device__ __forceinline__ void flush(int passes, unsigned* d_counts) {
    constexpr unsigned threads_a_start = warp::warp_size / Copies;
    for (int i = threadIdx.x; i < passes * radix_digits; i += blockDim.x) {
      const unsigned* copies = &all[i * Copies];
      const unsigned start = static_cast<unsigned>(i) / threads_a_start;
      unsigned total = 0;
      // Threads start at different copies, so that a warp's reads fall on different banks.
#pragma unroll
      for (unsigned j = 0; j < Copies; ++j) total += copies[(j + start) % Copies];
      if (total != 0) atomicAdd(d_counts + i, total);
    }
  }
};

}  // namespace lookback::radix
