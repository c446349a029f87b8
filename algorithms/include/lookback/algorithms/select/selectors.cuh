#pragma once
// What decides whether an item is kept: a predicate on the item, or a flag array beside the items.
// Both hand a tile's decisions to the compaction kernel in the blocked arrangement its items are in
// (thread t holds items t * ItemsPerThread ...), as one bit an item: a bool an item held a register
// each and made the flags' kernel spill under its register cap. The bits are gathered by a loop
// written out at each place: the same loop behind a helper taking a lambda compiled differently and
// made select_if 5% slower at 1% kept (0.527 -> 0.556-0.563 ms at 2^28 on an H100, two machines).
#include <lookback/primitives/block/warp_transpose_io.cuh>
#include <lookback/primitives/thread/l2_prefetch.cuh>
#include <lookback/primitives/thread/vector16.cuh>

#include <cstdint>
#include <type_traits>

namespace lookback::select {

template <class Pred>
struct predicate_selector {
  Pred pred;

  template <class Policy>
  static constexpr std::size_t shared_bytes = 0;

  /// By one thread: what the selector reads beside the items, prefetched for a later tile (nothing).
  template <class Policy>
  __device__ __forceinline__ void prefetch_tile_ahead(std::int64_t /*tile*/, std::int64_t /*n*/) const {}

  /// Bit k of the result: whether the thread's item k is kept.
  template <class Policy, class T>
  __device__ __forceinline__ unsigned decide(std::int64_t /*base*/, int valid,
                                             const T (&items)[Policy::items_per_thread], void* /*shared*/) const {
    const int first = static_cast<int>(threadIdx.x) * Policy::items_per_thread;
    unsigned keep = 0;
#pragma unroll
    for (int k = 0; k < Policy::items_per_thread; ++k) keep |= (first + k < valid && pred(items[k]) ? 1u : 0u) << k;
    return keep;
  }
};

/// A nonzero flag keeps the item beside it.
template <class Flag>
struct flags_selector {
  const Flag* d_flags;
  bool aligned;  // d_flags is 16-byte aligned

  template <class Policy>
  using io = block::warp_transpose_io<Flag, Policy::threads, Policy::items_per_thread>;
  template <class Policy>
  static constexpr std::size_t shared_bytes = sizeof(typename io<Policy>::storage);

  template <class Policy>
  __device__ __forceinline__ void prefetch_tile_ahead(std::int64_t tile, std::int64_t n) const {
    thread::prefetch_tile_ahead<Policy::prefetch_tiles>(d_flags, tile, Policy::tile_items, n);
  }

  /// Whether a thread's run of flags is one or two whole 16-byte vectors (own_vectors).
  template <class Policy>
  static constexpr bool direct_vectors = Policy::items_per_thread * sizeof(Flag) % 16 == 0 &&
                                         Policy::items_per_thread * sizeof(Flag) <= 32;

  template <class Policy, class T>
  __device__ __forceinline__ unsigned decide(std::int64_t base, int valid, const T (&)[Policy::items_per_thread],
                                             void* shared) const {
    if constexpr (direct_vectors<Policy>) {
      if (Policy::vector_access && aligned && valid == Policy::tile_items) return own_vectors<Policy>(base);
    }
    // The flags stage where the items just did; with another item size the warps' regions overlap,
    // so every warp must be done reading its items first.
    if constexpr (sizeof(Flag) != sizeof(T)) __syncthreads();
    Flag flags[Policy::items_per_thread];
    io<Policy>::load(d_flags + base, valid, flags, Flag{}, *static_cast<typename io<Policy>::storage*>(shared),
                     Policy::vector_access && aligned);
    unsigned keep = 0;
#pragma unroll
    for (int k = 0; k < Policy::items_per_thread; ++k) keep |= (flags[k] != Flag{} ? 1u : 0u) << k;
    return keep;
  }

  /// A full tile's decisions where direct_vectors allows (the same answer for the whole block): the
  /// thread loads its run of flags itself as whole vectors, already in the blocked arrangement (a
  /// warp's loads together still cover contiguous memory). Byte flags are tested four to a word.
  template <class Policy>
  __device__ __forceinline__ unsigned own_vectors(std::int64_t base) const {
    using vec = thread::vector16<Flag>;
    const auto* d_run = reinterpret_cast<const vec*>(d_flags + base + threadIdx.x * Policy::items_per_thread);
    unsigned keep = 0;
#pragma unroll
    for (int v = 0; v < Policy::items_per_thread / vec::size; ++v) {
      const vec x = d_run[v];
      if constexpr (sizeof(Flag) == 1 && std::is_integral_v<Flag>) {
        unsigned words[4];
        memcpy(words, &x, sizeof(words));
#pragma unroll
        for (int w = 0; w < 4; ++w) {
          // 0xff in each nonzero byte; its top bits gathered into the word's top four bits.
          const unsigned nonzero = __vcmpne4(words[w], 0u) & 0x80808080u;
          keep |= ((nonzero * 0x00204081u) >> 28) << (v * 16 + w * 4);
        }
      } else {
#pragma unroll
        for (int c = 0; c < vec::size; ++c) keep |= (x.items[c] != Flag{} ? 1u : 0u) << (v * vec::size + c);
      }
    }
    return keep;
  }
};

}  // namespace lookback::select
