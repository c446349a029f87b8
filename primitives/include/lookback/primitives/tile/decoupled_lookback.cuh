#pragma once
// The decoupled look-back (Merrill & Garland 2016): one warp inspects the 32 nearest predecessor
// tiles at once, combines their aggregates from the nearest back to the first inclusive prefix it
// meets, and slides the window back when it meets none. A tile only ever waits on tiles that took
// their ids before it did (ids come from an atomic counter), so it cannot wait on a block that is not
// running, whatever order the hardware schedules blocks in.
#include <lookback/primitives/operators.cuh>
#include <lookback/primitives/tile/tile_status.cuh>
#include <lookback/primitives/warp/warp_reduce.cuh>

#include <cstdint>

namespace lookback::tile {

/// Called by all 32 lanes of one warp; returns the combination of every item before `tile`.
/// InitialDelayNs waits before the first poll: a predecessor's descriptor takes about an L2 write
/// latency to appear, and polling sooner only contends for the L2 lines that hold the descriptors
/// (policy/scan_policy.cuh has the measurements; a back-off between later polls changed nothing).
template <int InitialDelayNs = 0, class T, class Op, class StatusArray>
__device__ T lookback_exclusive_prefix(const StatusArray& tiles, std::int64_t tile, Op op, const T& identity) {
  const int lane = warp::lane_id();
  if constexpr (InitialDelayNs > 0) __nanosleep(InitialDelayNs);
  T exclusive = identity;
  for (std::int64_t nearest = tile - 1;; nearest -= warp::warp_size) {
    const std::int64_t predecessor = nearest - lane;
    T value = identity;
    status st = status::inclusive_prefix;  // before tile 0 there is nothing to add
    for (;;) {
      if (predecessor >= 0) st = tiles.read(predecessor, value);
      if (!__any_sync(warp::full_mask, st == status::not_ready)) break;
    }
    const unsigned prefix_lanes = __ballot_sync(warp::full_mask, st == status::inclusive_prefix);
    const int last = prefix_lanes != 0 ? __ffs(static_cast<int>(prefix_lanes)) - 1 : warp::warp_size - 1;
    // Lane 0 holds the nearest tile, so lanes combine in descending order.
    const T window = warp::reduce(lane <= last ? value : identity, swapped<Op>{op});
    exclusive = op(window, exclusive);
    if (prefix_lanes != 0) return exclusive;
  }
}

/// One tile's whole step in the chain, called by every thread of the block with the block's total:
/// tile 0 publishes `first op block_total` as its inclusive prefix; any other tile's first warp
/// publishes the aggregate, looks back, and publishes the inclusive prefix. Thread 0 leaves the tile's
/// exclusive prefix (`first` for tile 0) in `shared_prefix`; the caller synchronises the block before
/// reading it.
template <int InitialDelayNs, class T, class Op, class StatusArray>
__device__ __forceinline__ void publish_and_look_back(const StatusArray& tiles, std::int64_t tile, const T& block_total,
                                                      Op op, const T& identity, const T& first, T& shared_prefix) {
  if (tile == 0) {
    if (threadIdx.x == 0) {
      tiles.publish(0, status::inclusive_prefix, op(first, block_total));
      shared_prefix = first;
    }
  } else if (threadIdx.x < warp::warp_size) {
    if (threadIdx.x == 0) tiles.publish(tile, status::aggregate, block_total);
    const T prefix = lookback_exclusive_prefix<InitialDelayNs>(tiles, tile, op, identity);
    if (threadIdx.x == 0) {
      tiles.publish(tile, status::inclusive_prefix, op(prefix, block_total));
      shared_prefix = prefix;
    }
  }
}

}  // namespace lookback::tile
