#pragma once
// What decides whether an item is kept: a predicate on the item, or a flag array beside the items.
// Both hand a tile's decisions to the compaction kernel in the blocked arrangement its items are in
// (thread t holds items t * ItemsPerThread ...).
#include <lookback/primitives/block/warp_transpose_io.cuh>

#include <cstdint>

namespace lookback::select {

template <class Pred>
struct predicate_selector {
  Pred pred;

  template <class Policy>
  static constexpr std::size_t shared_bytes = 0;

  template <class Policy, class T>
  __device__ __forceinline__ void decide(std::int64_t /*base*/, int valid, const T (&items)[Policy::items_per_thread],
                                         bool (&keep)[Policy::items_per_thread], void* /*shared*/) const {
    const int first = static_cast<int>(threadIdx.x) * Policy::items_per_thread;
#pragma unroll
    for (int k = 0; k < Policy::items_per_thread; ++k) keep[k] = first + k < valid && pred(items[k]);
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

  template <class Policy, class T>
  __device__ __forceinline__ void decide(std::int64_t base, int valid, const T (&)[Policy::items_per_thread],
                                         bool (&keep)[Policy::items_per_thread], void* shared) const {
    // The flags stage where the items just did; with another item size the warps' regions overlap, so
    // every warp must be done reading its items first.
    if constexpr (sizeof(Flag) != sizeof(T)) __syncthreads();
    Flag flags[Policy::items_per_thread];
    io<Policy>::load(d_flags + base, valid, flags, Flag{}, *static_cast<typename io<Policy>::storage*>(shared),
                     Policy::vector_access && aligned);
#pragma unroll
    for (int k = 0; k < Policy::items_per_thread; ++k) keep[k] = flags[k] != Flag{};
  }
};

}  // namespace lookback::select
