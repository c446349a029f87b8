#pragma once
// What the deterministic pipelined kernels share (device/deterministic_scan_lookahead_kernel.cuh and
// device/deterministic_reduce_lookahead_kernel.cuh): a stage's hand-overs, the warp folds of published
// aggregates, and the reduce role, which forms each granule's aggregate in the promised association
// (deterministic_scan.cuh) and publishes it.
#include <lookback/primitives/device/lookahead_pipeline.cuh>
#include <lookback/primitives/policy/scan_policy.cuh>
#include <lookback/primitives/thread/bulk_copy.cuh>
#include <lookback/primitives/thread/partial.cuh>
#include <lookback/primitives/tile/tile_id.cuh>
#include <lookback/primitives/tile/tile_status.cuh>
#include <lookback/primitives/warp/shuffle.cuh>
#include <lookback/primitives/warp/warp_scan.cuh>

#include <cstdint>

namespace lookback::device {

namespace lookahead {

/// A deterministic stage's hand-overs: its barriers; for each chunk, the Kogge-Stone value of the runs
/// before each run (a scan's alone: `KeepRuns`) and the chunk's total; each granule's aggregate; the
/// window prefix, and the window's granules before the tile, folded. Runs, chunks and granules without
/// items are never read, so their values carry no emptiness flag.
template <class T, int Chunks, int Granules, bool KeepRuns = true>
struct deterministic_stage_control {
  static constexpr bool keep_runs = KeepRuns;
  static constexpr int chunks = Chunks;
  static constexpr int granules = Granules;
  stage_sync sync;
  T run_before[KeepRuns ? Chunks : 1][warp::warp_size];
  T chunk_total[Chunks];
  T granule_aggregate[Granules];
  thread::partial<T> window_prefix;
  thread::partial<T> local_before;
};

/// Called by all 32 lanes with warp-uniform counts: `a` then lane i's `values_a` for i < count_a, left
/// to right, and `b` likewise. The two folds interleave, and only as many lanes as they need are read,
/// eight at a time: the look-ahead's folds are on every tile's path to its prefix.
template <class T, class Op>
__device__ __forceinline__ void fold_lanes_both(thread::partial<T>& a, const T& values_a, int count_a,
                                                thread::partial<T>& b, const T& values_b, int count_b, Op op) {
  constexpr int group = 8;
  const int count = count_a > count_b ? count_a : count_b;
  for (int first = 0; first < count; first += group) {
#pragma unroll
    for (int j = 0; j < group; ++j) {
      const int i = first + j;
      const T x = warp::shfl(values_a, i);
      const T y = warp::shfl(values_b, i);
      if (i < count_a) a = thread::then(a, x, op);
      if (i < count_b) b = thread::then(b, y, op);
    }
  }
}

/// fold_lanes_both's fold alone.
template <class T, class Op>
__device__ __forceinline__ thread::partial<T> fold_lanes(thread::partial<T> acc, const T& values, int count, Op op) {
  thread::partial<T> none{T{}, false};
  fold_lanes_both(acc, values, count, none, values, 0, op);
  return acc;
}


#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

/// The reduce role, by its RoleWarps warps for one loaded tile of `valid` items in `stage` (warp w takes
/// chunks w, w + RoleWarps, ... of the tile; lane l the chunk's run l): each run's total, left to right;
/// their Kogge-Stone scan across the chunk's 32 runs (kept for a scan's warps where the control keeps
/// runs) and the chunk's total; then each granule's aggregate, its chunks' totals folded in order,
/// published at once and kept in the stage's control.
template <int RoleWarps, class Control, class T, class Op, class StatusArray>
__device__ __forceinline__ void reduce_granules(Control& c, const T* stage, int valid, std::int64_t tile, Op op,
                                                const StatusArray& granules) {
  using part = thread::partial<T>;
  using combine = thread::partial_op<Op>;
  namespace shape = policy::deterministic_granule;
  constexpr int run_items = shape::run_items;
  static_assert(run_items % 2 == 1, "odd runs: a warp's reads of its runs fall on distinct banks");
  constexpr int chunk_items = run_items * warp::warp_size;
  constexpr int granules_per_tile = Control::granules;
  constexpr int chunks = Control::chunks;
  constexpr int tile_items = chunks * chunk_items;
  const int r = static_cast<int>(threadIdx.x);
  const int warp_index = r / warp::warp_size;
  const int lane = warp::lane_id();
#pragma unroll
  for (int i = 0; i < chunks / RoleWarps; ++i) {
    const int q = warp_index + i * RoleWarps;
    const T* const run = stage + q * chunk_items + lane * run_items;
    if (valid == tile_items) {
      T total = run[0];
#pragma unroll
      for (int k = 1; k < run_items; ++k) total = op(total, run[k]);
      const T x = warp::inclusive_scan(total, op);
      if constexpr (Control::keep_runs) c.run_before[q][lane] = warp::shfl_up(x, 1);
      if (lane == warp::warp_size - 1) c.chunk_total[q] = x;
    } else {
      const int run_valid = valid - q * chunk_items - lane * run_items;
      part total{T{}, false};
      for (int k = 0; k < run_items && k < run_valid; ++k) total = thread::then(total, run[k], op);
      const part x = warp::inclusive_scan(total, combine{op});
      if constexpr (Control::keep_runs) c.run_before[q][lane] = warp::shfl_up(x, 1).value;
      if (lane == warp::warp_size - 1) c.chunk_total[q] = x.value;
    }
  }
  thread::named_barrier(1, RoleWarps * warp::warp_size);
  if (r < granules_per_tile) {
    part aggregate{T{}, false};
#pragma unroll
    for (int w = 0; w < shape::warps; ++w) {
      const int q = r * shape::warps + w;
      if (q * chunk_items < valid) aggregate = thread::then(aggregate, c.chunk_total[q], op);
    }
    c.granule_aggregate[r] = aggregate.value;
    if (aggregate.has) granules.publish(tile * granules_per_tile + r, tile::status::aggregate, aggregate.value);
  }
}

#endif

}  // namespace lookahead

}  // namespace lookback::device
