#pragma once
// The deterministic scan's look-back: an entry's exclusive prefix is always the left fold, in order,
// of the start value and every earlier entry's aggregate (entries: the granules of one window, or the
// windows). A warp finds the nearest published inclusive prefix (or the start) as the decoupled
// look-back does, then folds forward from it through the aggregates in between. Every published
// inclusive prefix is itself that left fold, so which one the warp happens to find changes nothing:
// the bits depend on the data alone, never on timing, the tile size or the number of SMs.
#include <lookback/primitives/thread/partial.cuh>
#include <lookback/primitives/tile/tile_status.cuh>
#include <lookback/primitives/warp/shuffle.cuh>

#include <cstdint>

namespace lookback::tile {

namespace detail {
/// Folds lanes `from` down to 0 of `value` (the nearer entries sit in the lower lanes) onto acc and
/// gives every lane the result. Lane 0 folds alone from the warp's 32 slots of shared memory, whose
/// independent loads pipeline: a loop of shuffles serialised a shuffle's latency per step (5.0 ms at
/// 2^28 float32 with the one-level look-back); 32 unrolled shuffles ran as fast (0.98 against 0.99
/// ms) but keep up to 32 values in registers beside the tile's items.
template <class T, class Op>
__device__ __forceinline__ thread::partial<T> fold_lanes(thread::partial<T> acc, const T& value, int from, Op op,
                                                         T* scratch) {
  const int lane = warp::lane_id();
  scratch[lane] = value;
  __syncwarp();
  if (lane == 0) {
#pragma unroll 4
    for (int l = from; l >= 0; --l) acc = thread::then(acc, scratch[l], op);
  }
  __syncwarp();
  return warp::shfl(acc, 0);
}
}  // namespace detail

/// Called by all 32 lanes of one warp; returns every lane the fold of the start value (`start()`, a
/// partial<T>; called only by a look-back that reaches it, since it may read device memory) and the
/// aggregates of entries lowest .. first-1. `scratch`: 32 values of shared memory for this warp.
template <int InitialDelayNs, class T, class Op, class StatusArray, class Start>
__device__ thread::partial<T> ordered_exclusive_prefix(const StatusArray& entries, std::int64_t first, std::int64_t lowest,
                                                       Op op, Start start, T* scratch) {
  if (first == lowest) return start();
  const int lane = warp::lane_id();
  if constexpr (InitialDelayNs > 0) __nanosleep(InitialDelayNs);
  // Back 32 entries at a time to the nearest inclusive prefix; a lane before `lowest` stands for the
  // start.
  int reads = 0;
  T value{};
  unsigned found = 0;
  for (;; ++reads) {
    const std::int64_t g = first - 1 - std::int64_t{32} * reads - lane;
    status st = status::inclusive_prefix;
    for (;;) {
      if (g >= lowest) st = entries.read(g, value);
      if (!__any_sync(warp::full_mask, st == status::not_ready)) break;
    }
    found = __ballot_sync(warp::full_mask, st == status::inclusive_prefix);
    if (found != 0) break;
  }
  const int last = __ffs(static_cast<int>(found)) - 1;
  const bool at_start = first - 1 - std::int64_t{32} * reads - last < lowest;
  const T nearest_prefix = warp::shfl(value, last);
  thread::partial<T> acc = at_start ? start() : thread::partial<T>{nearest_prefix, true};
  acc = detail::fold_lanes(acc, value, last - 1, op, scratch);
  // The nearer reads again (every entry in them has published by now, some maybe their prefix; none
  // lies before `lowest`, or the farther read would not have been needed).
  for (int w = reads - 1; w >= 0; --w) {
    const status st = entries.read(first - 1 - std::int64_t{32} * w - lane, value);
    const unsigned prefixes = __ballot_sync(warp::full_mask, st == status::inclusive_prefix);
    int from = warp::warp_size - 1;
    if (prefixes != 0) {
      from = __ffs(static_cast<int>(prefixes)) - 1;
      acc = {warp::shfl(value, from), true};
      --from;
    }
    acc = detail::fold_lanes(acc, value, from, op, scratch);
  }
  return acc;
}

}  // namespace lookback::tile
