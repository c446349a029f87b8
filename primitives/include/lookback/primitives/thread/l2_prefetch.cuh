#pragma once
// A tile's input fetched into L2 ahead of the block that will read it. Single-pass kernels take tile
// ids in the order blocks start, so the tile a block will load some way ahead is known to an earlier
// block; one bulk prefetch (Hopper's copy engine: no registers, no shared memory, nothing to wait on)
// lets DRAM work on it while the earlier blocks rank, scan or look back, and the later block's loads
// then meet L2 latency instead of DRAM's.
#include <cstdint>
#include <type_traits>

namespace lookback::thread {

/// By one thread: hints that [first, first + count) will be read soon. Only the whole 16-byte units
/// inside the range are fetched (the bulk prefetch's granule), so nothing outside the range is touched.
/// A no-op before sm_90.
template <class T>
__device__ __forceinline__ void prefetch_l2(const T* first, std::int64_t count) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const auto begin = (reinterpret_cast<std::uintptr_t>(first) + 15) & ~std::uintptr_t{15};
  const auto end = reinterpret_cast<std::uintptr_t>(first + count) & ~std::uintptr_t{15};
  if (end > begin)
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(begin), "r"(static_cast<unsigned>(end - begin))
                 : "memory");
#else
  (void)first;
  (void)count;
#endif
}

/// By one thread of tile `tile`'s block: prefetches the input of tile `tile + Distance` of `tile_items`
/// items (n in all), if there is one. Distance 0 prefetches nothing, nor does an input that is not a
/// pointer (an iterator computing its items has no memory to fetch).
template <int Distance, class InputIt>
__device__ __forceinline__ void prefetch_tile_ahead(InputIt d_in, std::int64_t tile, int tile_items, std::int64_t n) {
  if constexpr (Distance > 0 && std::is_pointer_v<InputIt>) {
    const std::int64_t first = (tile + Distance) * tile_items;
    if (first < n) prefetch_l2(d_in + first, n - first < tile_items ? n - first : tile_items);
  }
}

}  // namespace lookback::thread
