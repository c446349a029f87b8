#pragma once
// The look-ahead of a persistent block (device/scan_lookahead_kernel.cuh): its tiles come in rising id
// order, so one warp keeps a running prefix of every aggregate published before the block's latest
// tile and extends it to the next tile by folding in the aggregates between the two, from the oldest,
// as far as they are published. Tiles then publish only aggregates, never inclusive prefixes, and no
// tile's prefix waits on another tile's look-back: only on its predecessors having reduced their items.
#include <lookback/primitives/tile/tile_status.cuh>
#include <lookback/primitives/warp/warp_reduce.cuh>

#include <cstdint>

namespace lookback::tile {

/// Called by all 32 lanes of one warp: folds the aggregates of tiles [next, end) into `running`, in
/// tile order, reading `Chunks` x 32 descriptors a poll; on return next == end. A poll that finds the
/// oldest wanted tile not yet published waits `RetryDelayNs` before the next.
template <int Chunks, int RetryDelayNs, class T, class Op, class StatusArray>
__device__ __forceinline__ void fold_aggregates(const StatusArray& tiles, std::int64_t& next, std::int64_t end,
                                                T& running, Op op, const T& identity) {
  const int lane = warp::lane_id();
  while (next < end) {
    T values[Chunks];
    bool ready[Chunks];
#pragma unroll
    for (int c = 0; c < Chunks; ++c) {
      const std::int64_t t = next + c * warp::warp_size + lane;
      values[c] = identity;
      ready[c] = t < end && tiles.read(t, values[c]) == status::aggregate;
    }
    std::int64_t folded = 0;
#pragma unroll
    for (int c = 0; c < Chunks; ++c) {
      const std::int64_t first = next + c * warp::warp_size;
      const unsigned wanted = first >= end ? 0u
                              : end - first >= warp::warp_size
                                  ? warp::full_mask
                                  : (1u << static_cast<unsigned>(end - first)) - 1u;
      const unsigned gaps = ~__ballot_sync(warp::full_mask, ready[c]) & wanted;
      const int take = gaps == 0 ? __popc(wanted) : __ffs(static_cast<int>(gaps)) - 1;
      if (take > 0) running = op(running, warp::reduce(lane < take ? values[c] : identity, op));
      folded += take;
      if (take < warp::warp_size) break;  // a gap, or the end
    }
    next += folded;
    if constexpr (RetryDelayNs > 0) {
      if (folded == 0) __nanosleep(RetryDelayNs);
    }
  }
}

/// Called by all 32 lanes of one warp: waits until tiles [first, first + count) (count <= 32) have all
/// published their aggregates; lane i returns tile first + i's.
template <class T, class StatusArray>
__device__ __forceinline__ T wait_published(const StatusArray& tiles, std::int64_t first, int count) {
  const int lane = warp::lane_id();
  T value{};
  bool ready = lane >= count;
  while (!__all_sync(warp::full_mask, ready))
    if (!ready) ready = tiles.read(first + lane, value) == status::aggregate;
  return value;
}

/// wait_published over two ranges at once, so that both cost one round of reads: lane i's value of
/// a's tile first_a + i and of b's tile first_b + i.
template <class T, class StatusArray>
__device__ __forceinline__ void wait_published_both(const StatusArray& a, std::int64_t first_a, int count_a, T& value_a,
                                                    const StatusArray& b, std::int64_t first_b, int count_b,
                                                    T& value_b) {
  const int lane = warp::lane_id();
  bool ready_a = lane >= count_a;
  bool ready_b = lane >= count_b;
  while (!__all_sync(warp::full_mask, ready_a && ready_b)) {
    if (!ready_a) ready_a = a.read(first_a + lane, value_a) == status::aggregate;
    if (!ready_b) ready_b = b.read(first_b + lane, value_b) == status::aggregate;
  }
}

}  // namespace lookback::tile
