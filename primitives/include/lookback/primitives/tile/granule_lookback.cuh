#pragma once
// The deterministic scan's look-back: a granule's exclusive prefix is always the left fold, in order,
// of the start value and every earlier granule's aggregate. A warp finds the nearest published
// inclusive prefix (or the start) as the decoupled look-back does, then folds forward from it through
// the aggregates in between. Every published inclusive prefix is itself that left fold, so which one
// the warp happens to find changes nothing: the bits depend on the data and the granule size alone,
// never on timing, the tile size or the number of SMs.
#include <lookback/primitives/thread/partial.cuh>
#include <lookback/primitives/tile/tile_status.cuh>
#include <lookback/primitives/warp/shuffle.cuh>

#include <cstdint>

namespace lookback::tile {

namespace detail {
/// Folds lanes `from` down to 0 of `value` (the nearer granules sit in the lower lanes) onto acc.
/// Unrolled over all 32 lanes with the fold predicated, so the shuffles issue back to back and only
/// the operator's chain is serial (a loop bounded by `from` serialised a shuffle's latency per step).
template <class T, class Op>
__device__ __forceinline__ thread::partial<T> fold_lanes(thread::partial<T> acc, const T& value, int from, Op op) {
#pragma unroll
  for (int l = warp::warp_size - 1; l >= 0; --l) {
    const T v = warp::shfl(value, l);
    if (l <= from) acc = thread::then(acc, v, op);
  }
  return acc;
}
}  // namespace detail

/// Called by all 32 lanes of one warp; returns every lane the fold of the start value (`start()`, a
/// partial<T>: empty for a plain inclusive scan; called only by a look-back that reaches it, since it
/// may read device memory) and the aggregates of granules 0 .. first-1.
template <int InitialDelayNs, class T, class Op, class StatusArray, class Start>
__device__ thread::partial<T> granule_exclusive_prefix(const StatusArray& granules, std::int64_t first, Op op, Start start) {
  if (first == 0) return start();
  const int lane = warp::lane_id();
  if constexpr (InitialDelayNs > 0) __nanosleep(InitialDelayNs);
  // Back a window of 32 granules at a time to the nearest inclusive prefix; a lane before granule 0
  // stands for the start.
  int windows = 0;
  T value{};
  unsigned found = 0;
  for (;; ++windows) {
    const std::int64_t g = first - 1 - std::int64_t{32} * windows - lane;
    status st = status::inclusive_prefix;
    for (;;) {
      if (g >= 0) st = granules.read(g, value);
      if (!__any_sync(warp::full_mask, st == status::not_ready)) break;
    }
    found = __ballot_sync(warp::full_mask, st == status::inclusive_prefix);
    if (found != 0) break;
  }
  const int last = __ffs(static_cast<int>(found)) - 1;
  const bool at_start = first - 1 - std::int64_t{32} * windows - last < 0;
  const T nearest_prefix = warp::shfl(value, last);
  thread::partial<T> acc = at_start ? start() : thread::partial<T>{nearest_prefix, true};
  acc = detail::fold_lanes(acc, value, last - 1, op);
  // The nearer windows again (every granule in them has published by now, some maybe their prefix).
  for (int w = windows - 1; w >= 0; --w) {
    const status st = granules.read(first - 1 - std::int64_t{32} * w - lane, value);
    const unsigned prefixes = __ballot_sync(warp::full_mask, st == status::inclusive_prefix);
    int from = warp::warp_size - 1;
    if (prefixes != 0) {
      from = __ffs(static_cast<int>(prefixes)) - 1;
      acc = {warp::shfl(value, from), true};
      --from;
    }
    acc = detail::fold_lanes(acc, value, from, op);
  }
  return acc;
}

}  // namespace lookback::tile
