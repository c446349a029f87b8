#pragma once
// Tile ids for single-pass kernels with a look-back: blocks take ids from an atomic counter in the
// order they start, not from blockIdx, so every tile a block may wait on belongs to a block that has
// already started and cannot be starved by one the hardware has not scheduled yet.
#include <lookback/primitives/detail/dependent_launch.cuh>

#include <cstdint>

namespace lookback::tile {

/// Called by every thread of the block (it synchronises the block); `shared_slot` is a __shared__
/// unsigned the block owns. The thread that takes the id first calls `on_taken(id)`, before the
/// barrier, while it holds nothing else (a prefetch issued there costs the kernel no registers); loads
/// there that do not need the id go out while the id is on its way. A kernel
/// launched dependent on the one that clears its counter and descriptors (detail/clear_then_launch.cuh)
/// waits for it here, before the block touches either; launched plainly, the wait costs nothing.
/// One thread's wait is enough for the block: griddepcontrol.wait returns once the prior grid has
/// completed and its writes are visible to this whole grid (PTX ISA, griddepcontrol), and the other
/// threads touch the counter or the descriptors only after the barrier below.
template <class OnTaken>
__device__ __forceinline__ std::int64_t acquire_tile(unsigned* d_counter, unsigned& shared_slot, OnTaken on_taken) {
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    lookback::detail::wait_for_prior_grid();
    const unsigned id = atomicAdd(d_counter, 1u);
    on_taken(static_cast<std::int64_t>(id));
    shared_slot = id;
  }
  __syncthreads();
  return shared_slot;
}

__device__ __forceinline__ std::int64_t acquire_tile(unsigned* d_counter, unsigned& shared_slot) {
  return acquire_tile(d_counter, shared_slot, [](std::int64_t) {});
}

/// Items in tile `tile` of `tile_items` each, n in all.
__device__ __forceinline__ int items_in_tile(std::int64_t tile, int tile_items, std::int64_t n) {
  const std::int64_t rest = n - tile * tile_items;
  return static_cast<int>(rest < tile_items ? rest : tile_items);
}

}  // namespace lookback::tile
