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
/// `digit(k)`: the digit of the thread's k-th key.
template <int ItemsPerThread, int Warps, class DigitOf>
__device__ __forceinline__ void count_warp_digits(warp_digit_counts<Warps>& s, DigitOf digit) {
  unsigned* row = s.counts[threadIdx.x / warp::warp_size];
#pragma unroll
  for (int i = warp::lane_id(); i < radix_digits; i += warp::warp_size) row[i] = 0;

  __syncwarp();
#pragma unroll
  for (int k = 0; k < ItemsPerThread; ++k) atomicAdd(&row[digit(k)], 1u);
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

/// The lanes of the warp whose digit equals this lane's, by a vote per digit bit. InlineVotes: each
/// bit costs a predicate-setting AND, the vote and a predicated NOT, written in PTX as CUB writes it;
/// otherwise the compiler's form of the same test, a few integer instructions more a bit. The digit
/// pass is bound by the integer pipe when it sorts keys alone, and not when values follow; the policy
/// (radix_sort_policy.cuh) picks the form that measured faster for each.
template <bool InlineVotes>
__device__ __forceinline__ unsigned lanes_with_equal_digit(unsigned digit) {
  unsigned peers = warp::full_mask;
#pragma unroll
  for (int b = 0; b < radix_bits; ++b) {
    if constexpr (InlineVotes) {
      unsigned vote;
      asm("{\n\t.reg .pred p;\n\t.reg .b32 t;\n\tand.b32 t, %1, %2;\n\tsetp.ne.u32 p, t, 0;\n\t"
          "vote.sync.ballot.b32 %0, p, 0xffffffff;\n\t@!p not.b32 %0, %0;\n\t}"
          : "=r"(vote)
          : "r"(digit), "r"(1u << b));
      peers &= vote;
    } else {
      const bool set = (digit >> b) & 1u;
      const unsigned vote = __ballot_sync(warp::full_mask, set);
      peers &= set ? vote : ~vote;
    }
  }
  return peers;
}

/// After a block barrier following add_digit_start, by every lane of the warp for its k-th key in
/// turn: the key's slot in the tile, in input order (k, then lane) among equal digits, which keeps the
/// sort stable.
template <bool InlineVotes, int Warps>
__device__ __forceinline__ unsigned rank_in_warp(warp_digit_counts<Warps>& s, unsigned digit, unsigned lanes_up_to_me) {
  unsigned* row = s.counts[threadIdx.x / warp::warp_size];
  const unsigned peers = lanes_with_equal_digit<InlineVotes>(digit);
  const int leader = warp::warp_size - 1 - __clz(static_cast<int>(peers));
  const unsigned before_me = __popc(peers & lanes_up_to_me);
  unsigned first = 0;
  if (warp::lane_id() == leader) first = atomicAdd(&row[digit], before_me);  // the leader counts them all
  return __shfl_sync(warp::full_mask, first, leader) + before_me - 1;
}

}  // namespace lookback::radix
