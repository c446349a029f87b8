#pragma once
// Ranking a tile's keys by digit, stably, with per-warp digit counters in shared memory: each warp
// counts its keys per digit; the counts become, once scanned over warps and digits, the first slot of
// each (warp, digit) in the tile; then each warp ranks its keys in input order, lanes with equal digits
// finding each other with a ballot per digit bit (as CUB's ranking does) and the highest of them
// advancing the warp's counter for all. Every key leaves with its final slot in the tile.
#include <lookback/algorithms/radix_sort/key_bits.cuh>
#include <lookback/primitives/warp/shuffle.cuh>

namespace lookback::radix {

template <int Warps>
struct warp_digit_counts {
  unsigned counts[Warps][radix_digits];
};

/// Each warp counts its own keys per digit into its row. It zeroes the row itself, so no block barrier
/// is needed before, provided nothing else used this shared memory earlier in the kernel.
template <int Warps, int ItemsPerThread>
__device__ __forceinline__ void count_warp_digits(warp_digit_counts<Warps>& s, const unsigned (&digit)[ItemsPerThread]) {
  unsigned* row = s.counts[threadIdx.x / warp::warp_size];
#pragma unroll
  for (int i = warp::lane_id(); i < radix_digits; i += warp::warp_size) row[i] = 0;
  __syncwarp();
#pragma unroll
  for (int k = 0; k < ItemsPerThread; ++k) atomicAdd(&row[digit[k]], 1u);
}

/// By the thread of digit `d`, after a block barrier: the warps' counts of d become exclusive prefixes
/// over the warps; returns the tile's count of d.
template <int Warps>
__device__ __forceinline__ unsigned exclusive_over_warps(warp_digit_counts<Warps>& s, int d) {
  unsigned running = 0;
#pragma unroll
  for (int w = 0; w < Warps; ++w) {
    const unsigned c = s.counts[w][d];
    s.counts[w][d] = running;
    running += c;
  }
  return running;
}

/// By the thread of digit `d`: moves d's counters past the tile's keys of smaller digits.
template <int Warps>
__device__ __forceinline__ void add_digit_start(warp_digit_counts<Warps>& s, int d, unsigned start) {
#pragma unroll
  for (int w = 0; w < Warps; ++w) s.counts[w][d] += start;
}

/// The lanes of the warp whose digit equals this lane's.
__device__ __forceinline__ unsigned lanes_with_equal_digit(unsigned digit) {
  unsigned peers = warp::full_mask;
#pragma unroll
  for (int b = 0; b < radix_bits; ++b) {
    const bool set = (digit >> b) & 1u;
    const unsigned vote = __ballot_sync(warp::full_mask, set);
    peers &= set ? vote : ~vote;
  }
  return peers;
}

/// After a block barrier following add_digit_start: each key's slot in the tile, in input order (k,
/// then lane) among equal digits, which keeps the sort stable.
template <int Warps, int ItemsPerThread>
__device__ __forceinline__ void rank_in_warp(warp_digit_counts<Warps>& s, const unsigned (&digit)[ItemsPerThread],
                                             unsigned (&slot)[ItemsPerThread]) {
  unsigned* row = s.counts[threadIdx.x / warp::warp_size];
  unsigned lanes_up_to_me;
  asm("mov.u32 %0, %%lanemask_le;" : "=r"(lanes_up_to_me));
  const int lane = warp::lane_id();
#pragma unroll
  for (int k = 0; k < ItemsPerThread; ++k) {
    const unsigned peers = lanes_with_equal_digit(digit[k]);
    const int leader = warp::warp_size - 1 - __clz(static_cast<int>(peers));
    const unsigned before_me = __popc(peers & lanes_up_to_me);
    unsigned first = 0;
    if (lane == leader) first = atomicAdd(&row[digit[k]], before_me);  // the leader counts them all
    slot[k] = __shfl_sync(warp::full_mask, first, leader) + before_me - 1;
  }
}

}  // namespace lookback::radix
