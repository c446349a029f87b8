#pragma once
// The deterministic scan (deterministic_scan.cuh states the association) on the pipeline of the
// look-ahead scans (device/lookahead_pipeline.cuh), for Hopper and later. A tile holds whole granules;
// a granule's runs are odd in length, so a warp reading its 32 runs straight from the stage touches 32
// distinct banks, as the default pipelined scan's odd runs do.
//   reduce (device/deterministic_lookahead_granules.cuh): each run's total and, across the 32 runs of
//     a chunk (a granule warp), their Kogge-Stone scan, kept for the scan warps; then each granule's
//     aggregate, its chunks' totals folded in order, which it publishes at once and keeps for the
//     tile's other roles;
//   window (one warp): where the tile closes its window, the window's aggregate, the window's earlier
//     granules' aggregates and the tile's own folded from the window's first, published at once;
//   look-ahead (one warp): folds, in one round of reads, the aggregates of the window's granules
//     before the tile (left to right from the window's first) and those of the windows since its
//     previous tile (into the window prefix);
//   scan: each granule's local prefix from the look-ahead's and the tile's granule aggregates, then
//     each run's items after the window prefix, the local prefix, the granule's earlier chunks and the
//     chunk's earlier runs, in that order, in place; then one bulk copy out.
// The look-ahead waits on reductions and windows' aggregates alone, never on another look-ahead, and
// a window's aggregate on reductions alone: with the window's aggregate published by the look-ahead
// of its closing tile, each look-ahead waited for others a round behind it (2^28 float32 on an H200:
// 0.74 ms against the default scan's 0.53).
#include <lookback/primitives/device/deterministic_lookahead_granules.cuh>
#include <lookback/primitives/device/lookahead_pipeline.cuh>
#include <lookback/primitives/policy/scan_policy.cuh>
#include <lookback/primitives/scan_carry.cuh>
#include <lookback/primitives/thread/partial.cuh>
#include <lookback/primitives/thread/scan_run.cuh>
#include <lookback/primitives/tile/running_lookahead.cuh>
#include <lookback/primitives/warp/warp_scan.cuh>

#include <cstdint>

namespace lookback::device {

/// Launched with Policy::threads threads (the reduce and scan warps, then the load, look-ahead and
/// window warps), at most one block an SM, Policy::stages * tile bytes of
/// dynamic shared memory; d_in and d_out 16-byte aligned. `init`: the initial value when `has_start`;
/// `d_total` (may be null) receives the total. Descriptors (granules', windows') and counter zeroed
/// first.
template <class Policy, bool Exclusive, class T, class Init, class Op, class StatusArray>
__global__ void __launch_bounds__(Policy::threads, 1)
    deterministic_scan_lookahead_kernel(const T* d_in, T* d_out, std::int64_t n, Op op, Init init, bool has_start,
                                        T* d_total, StatusArray granules, StatusArray windows,
                                        unsigned* d_tile_counter) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using part = thread::partial<T>;
  using combine = thread::partial_op<Op>;
  namespace shape = policy::deterministic_granule;
  constexpr int run_items = shape::run_items;
  static_assert(run_items % 2 == 1, "odd runs: a warp's reads of its runs fall on distinct banks");
  constexpr int granules_per_tile = Policy::granules_per_tile;
  constexpr int role_warps = Policy::role_warps;
  constexpr int role_threads = role_warps * warp::warp_size;
  constexpr int chunks = granules_per_tile * shape::warps;
  constexpr int chunk_items = run_items * warp::warp_size;
  constexpr int tile_items = Policy::tile_items;
  constexpr int stages = Policy::stages;
  constexpr int window_granules = shape::window_granules;
  using control = lookahead::deterministic_stage_control<T, chunks, granules_per_tile>;
  __shared__ control ctl[stages];
  extern __shared__ __align__(128) unsigned char deterministic_stage_bytes[];
  T* const stage_items = reinterpret_cast<T*>(deterministic_stage_bytes);

  const std::int64_t num_tiles = (n + tile_items - 1) / tile_items;
  const std::int64_t num_granules = (n + shape::items - 1) / shape::items;
  const int warp_index = static_cast<int>(threadIdx.x) / warp::warp_size;
  const int lane = warp::lane_id();
  lookahead::start_after_clearing(ctl, role_threads, 1);  // the window warp reads each stage's control

  if (warp_index < role_warps) {
    lookahead::for_each_loaded_tile(ctl, num_tiles, [&](int s, std::int64_t tile) {
      control& c = ctl[s];
      lookahead::reduce_granules<role_warps>(c, stage_items + s * tile_items, tile::items_in_tile(tile, tile_items, n),
                                             tile, op, granules);
      thread::barrier_arrive(&c.sync.reduced);
    });
  } else if (warp_index < 2 * role_warps) {
    // Scan: each run's items after its prefix, in place.
    const int r = static_cast<int>(threadIdx.x) - role_threads;
    const int scan_warp = warp_index - role_warps;
    int unreleased = -1;  // the stage whose outgoing copy may still be reading it
    lookahead::for_each_tile_to_scan(ctl, num_tiles, [&](int s, std::int64_t tile) {
      control& c = ctl[s];
      const int valid = tile::items_in_tile(tile, tile_items, n);
      T* const stage = stage_items + s * tile_items;
      // Granule j's prefix: the window prefix, then the window's granules before j folded on their own.
      part granule_prefix[granules_per_tile];
      part local = c.local_before;
#pragma unroll
      for (int j = 0; j < granules_per_tile; ++j) {
        granule_prefix[j] = combine{op}(c.window_prefix, local);
        if (j * shape::items < valid) local = thread::then(local, c.granule_aggregate[j], op);
      }
#pragma unroll
      for (int i = 0; i < chunks / role_warps; ++i) {
        const int q = scan_warp + i * role_warps;
        const int run_valid = valid - q * chunk_items - lane * run_items;
        if (run_valid <= 0) continue;  // past the end: a partial last tile
        const int granule_chunk = q % shape::warps;
        part acc = granule_prefix[q / shape::warps];
        if (granule_chunk > 0) {
          // The granule's earlier chunks, whole since this one has items.
          T earlier = c.chunk_total[q - granule_chunk];
          for (int w = q - granule_chunk + 1; w < q; ++w) earlier = op(earlier, c.chunk_total[w]);
          acc = thread::then(acc, earlier, op);
        }
        if (lane > 0) acc = thread::then(acc, c.run_before[q][lane], op);
        T* const items = stage + q * chunk_items + lane * run_items;
        const int count = run_valid < run_items ? run_valid : run_items;
        if (acc.has) {
          thread::scan_run<Exclusive, run_items>(items, acc.value, op, count);
        } else if constexpr (!Exclusive) {
          // An inclusive scan's first run with no start: its first item is its own result.
          thread::scan_run<false, run_items - 1>(items + 1, items[0], op, count - 1);
        }
      }
      if (d_total != nullptr && r == 0 && tile == num_tiles - 1) {
        const part total = combine{op}(c.window_prefix, local);
        if (total.has) *d_total = total.value;
      }
      lookahead::store_and_release<stages, role_threads>(ctl, s, unreleased, stage, d_out + tile * tile_items, valid,
                                                         r);
    });
    if (r == 0) thread::bulk_wait_all();
  } else if (warp_index == 2 * role_warps) {
    if (lane == 0) lookahead::load_tiles<stages, tile_items>(ctl, stage_items, d_in, n, d_tile_counter);
  } else if (warp_index == 2 * role_warps + 2) {
    // Window: the aggregate of each window this block's tiles close. It arrives on each stage's `free`
    // barrier, so that no stage is loaded again before it has read the stage's control.
    for (int it = 0;; ++it) {
      control& c = ctl[it % stages];
      const std::int64_t tile = lookahead::warp_wait_tile(ctl, it);
      if (tile >= num_tiles) return;
      const std::int64_t first = tile * granules_per_tile;
      if ((first + granules_per_tile) % window_granules == 0 && first + granules_per_tile <= num_granules) {
        const std::int64_t window_first = first / window_granules * window_granules;
        const int prior = static_cast<int>(first - window_first);
        const T aggregate = tile::wait_published<T>(granules, window_first, prior);
        part window_total = lookahead::fold_lanes(part{T{}, false}, aggregate, prior, op);
        thread::barrier_wait(&c.sync.reduced, (it / stages) & 1);
#pragma unroll
        for (int j = 0; j < granules_per_tile; ++j) window_total = thread::then(window_total, c.granule_aggregate[j], op);
        if (lane == 0) windows.publish(first / window_granules, tile::status::aggregate, window_total.value);
      }
      __syncwarp();
      if (lane == 0) thread::barrier_arrive(&c.sync.free);
    }
  } else {
    // Look-ahead: the prefix of window `window_done`, kept from tile to tile.
    part window_prefix = has_start ? part{lookback::detail::initial_value(init), true} : part{T{}, false};
    std::int64_t window_done = 0;
    for (int it = 0;; ++it) {
      control& c = ctl[it % stages];
      const std::int64_t tile = lookahead::warp_wait_tile(ctl, it);
      if (tile >= num_tiles) return;
      const std::int64_t first = tile * granules_per_tile;
      const std::int64_t window = first / window_granules;
      const std::int64_t window_first = window * window_granules;
      const int prior = static_cast<int>(first - window_first);  // the window's granules before the tile
      int count = window - window_done < warp::warp_size ? static_cast<int>(window - window_done) : warp::warp_size;
      T granule_aggregate{};
      T window_aggregate{};
      tile::wait_published_both<T>(granules, window_first, prior, granule_aggregate, windows, window_done, count,
                                   window_aggregate);
      part local{T{}, false};
      lookahead::fold_lanes_both(local, granule_aggregate, prior, window_prefix, window_aggregate, count, op);
      window_done += count;
      while (window_done < window) {  // more than 32 windows since the block's previous tile
        count = window - window_done < warp::warp_size ? static_cast<int>(window - window_done) : warp::warp_size;
        window_aggregate = tile::wait_published<T>(windows, window_done, count);
        window_prefix = lookahead::fold_lanes(window_prefix, window_aggregate, count, op);
        window_done += count;
      }
      if (lane == 0) {
        c.window_prefix = window_prefix;
        c.local_before = local;
        thread::barrier_arrive(&c.sync.prefix_known);
      }
    }
  }
#else
  __trap();  // the launcher only launches this kernel where it was compiled for sm_90 or later
#endif
}

}  // namespace lookback::device
