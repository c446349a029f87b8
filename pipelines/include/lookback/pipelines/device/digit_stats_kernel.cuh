#pragma once
// The external sort's partition passes count one digit of each key's order-preserving bit pattern
// (radix/key_bits.cuh): up to 12 bits, so the counters of a block stay in 16 KiB of shared memory,
// however skewed the keys. The same read finds the smallest and largest key field below the digit's
// top, which tells a bucket whose keys are all equal (copied through) and where the next split must
// start in one that is not.
#include <lookback/algorithms/radix_sort/key_bits.cuh>

#include <cstdint>

namespace lookback::pipelines::device {

inline constexpr int max_digit_bits = 12;

/// d_counts[digit] += the keys whose bits [shift, shift + width) are `digit` (1 << width counters);
/// with d_range, d_range[0] = min and d_range[1] = max of the bits [begin_bit, hi_bit) (set to ~0 and
/// 0 by the caller).
template <class Key, bool Descending>
__global__ void __launch_bounds__(256)
    digit_stats_kernel(const Key* d_keys, std::int64_t n, int shift, int width, int begin_bit, int hi_bit,
                       unsigned long long* d_counts, unsigned long long* d_range) {
  __shared__ unsigned counts[1 << max_digit_bits];
  const unsigned digits = 1u << width;
  for (unsigned i = threadIdx.x; i < digits; i += blockDim.x) counts[i] = 0;
  __syncthreads();
  const int field_bits = hi_bit - begin_bit;
  const unsigned long long field_mask = field_bits >= 64 ? ~0ull : (1ull << field_bits) - 1;
  unsigned long long low = ~0ull, high = 0;
  const std::int64_t stride = std::int64_t{gridDim.x} * blockDim.x;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += stride) {
    const unsigned long long bits = radix::ordered_bits<Key, Descending>(d_keys[i]);
    atomicAdd(&counts[static_cast<unsigned>(bits >> shift) & (digits - 1)], 1u);
    const unsigned long long field = (bits >> begin_bit) & field_mask;
    low = field < low ? field : low;
    high = field > high ? field : high;
  }
  __syncthreads();
  for (unsigned i = threadIdx.x; i < digits; i += blockDim.x)
    if (counts[i] != 0) atomicAdd(d_counts + i, static_cast<unsigned long long>(counts[i]));
  if (d_range == nullptr) return;
  for (int offset = 16; offset > 0; offset /= 2) {
    const unsigned long long other_low = __shfl_xor_sync(0xffffffffu, low, offset);
    const unsigned long long other_high = __shfl_xor_sync(0xffffffffu, high, offset);
    low = other_low < low ? other_low : low;
    high = other_high > high ? other_high : high;
  }
  if (threadIdx.x % 32 == 0 && low <= high) {
    atomicMin(d_range, low);
    atomicMax(d_range + 1, high);
  }
}

}  // namespace lookback::pipelines::device
