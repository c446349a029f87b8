#pragma once
// The single-pass scan for Hopper and later, as a pipeline inside one persistent block an SM
// (device/lookahead_pipeline.cuh): tiles arrive in shared memory by bulk copies several tiles ahead of
// the warps that scan them, so DRAM reads never pause while a tile waits for its prefix. Warps keep to
// one role each:
//   load (one thread): takes the next tile id and starts its bulk copy into a free stage;
//   reduce: each tile's per-thread and per-warp prefixes and its aggregate, which it publishes at once;
//   look-ahead (one warp): the tile's exclusive prefix, from the running prefix of the block's previous
//     tile and the aggregates published between the two (tile/running_lookahead.cuh);
//   scan: the tile's results written back over its items, then one bulk copy out.
#include <lookback/primitives/device/lookahead_pipeline.cuh>
#include <lookback/primitives/operators.cuh>
#include <lookback/primitives/scan_carry.cuh>
#include <lookback/primitives/thread/bulk_copy.cuh>
#include <lookback/primitives/thread/scan_run.cuh>
#include <lookback/primitives/tile/running_lookahead.cuh>
#include <lookback/primitives/tile/tile_id.cuh>
#include <lookback/primitives/warp/warp_scan.cuh>

#include <cstdint>

namespace lookback::device {

namespace lookahead {

/// A stage's hand-overs: its barriers, the tile's prefix and aggregate, its reduction's per-warp
/// totals and per-thread prefixes.
template <class T, int Warps>
struct stage_control {
  stage_sync sync;
  T prefix;
  T aggregate;
  T warp_totals[Warps];
  T thread_prefix[Warps * warp::warp_size];
};

}  // namespace lookahead

/// Launched with Policy::threads threads, at most one block an SM, Policy::stages * tile bytes of
/// dynamic shared memory; d_in and d_out 16-byte aligned. Descriptors and counter zeroed first, by the
/// kernel this one may be launched dependent on.
template <class Policy, bool Exclusive, class T, class Init, class Op, class StatusArray>
__global__ void __launch_bounds__(Policy::threads, 1)
    scan_lookahead_kernel(const T* d_in, T* d_out, std::int64_t n, Op op, Init init, StatusArray tiles,
                          unsigned* d_tile_counter) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr int warps = Policy::warps;
  constexpr int role_threads = warps * warp::warp_size;
  constexpr int items_per_thread = Policy::items_per_thread;
  constexpr int tile_items = Policy::tile_items;
  constexpr int stages = Policy::stages;
  static_assert(tile_items * sizeof(T) % thread::bulk_copy_alignment == 0, "tiles must keep bulk copies aligned");
  using control = lookahead::stage_control<T, warps>;
  __shared__ control ctl[stages];
  extern __shared__ __align__(128) unsigned char lookahead_stage_bytes[];
  T* const stage_items = reinterpret_cast<T*>(lookahead_stage_bytes);

  const std::int64_t num_tiles = (n + tile_items - 1) / tile_items;
  const T identity = neutral_of<T>(op);
  const int warp_index = static_cast<int>(threadIdx.x) / warp::warp_size;
  const int lane = warp::lane_id();
  lookahead::start_after_clearing(ctl, role_threads);

  if (warp_index < warps) {
    // Reduce: thread r owns items [r * items_per_thread, (r + 1) * items_per_thread) of each tile.
    const int r = static_cast<int>(threadIdx.x);
    lookahead::for_each_loaded_tile(ctl, num_tiles, [&](int s, std::int64_t tile) {
      control& c = ctl[s];
      const int valid = tile::items_in_tile(tile, tile_items, n);
      const T* items = stage_items + s * tile_items + r * items_per_thread;
      T total = identity;
      if (valid == tile_items) {
#pragma unroll
        for (int k = 0; k < items_per_thread; ++k) total = op(total, items[k]);
      } else {
        for (int k = 0; k < items_per_thread && r * items_per_thread + k < valid; ++k) total = op(total, items[k]);
      }
      const T inclusive = warp::inclusive_scan(total, op);
      const T exclusive_in_warp = warp::exclusive_from_inclusive<T, Op>(inclusive, identity);
      if (lane == warp::warp_size - 1) c.warp_totals[warp_index] = inclusive;
      // Stage s's warp totals are next written `stages` tiles later, past this barrier of the tiles
      // between, so no warp overwrites what a slower one still reads.
      thread::named_barrier(1, role_threads);
      T warp_prefix = identity;
#pragma unroll
      for (int w = 0; w < warps; ++w)
        if (w < warp_index) warp_prefix = op(warp_prefix, c.warp_totals[w]);
      c.thread_prefix[r] = op(warp_prefix, exclusive_in_warp);
      if (r == role_threads - 1) {
        const T aggregate = op(warp_prefix, inclusive);
        c.aggregate = aggregate;
        tiles.publish(tile, tile::status::aggregate, aggregate);
      }
      thread::barrier_arrive(&c.sync.reduced);
    });
  } else if (warp_index < 2 * warps) {
    // Scan: results over the items in place, then one thread copies the tile out.
    const int r = static_cast<int>(threadIdx.x) - role_threads;
    T* const d_total = lookback::detail::total_slot(init);
    int unreleased = -1;  // the stage whose outgoing copy may still be reading it
    lookahead::for_each_tile_to_scan(ctl, num_tiles, [&](int s, std::int64_t tile) {
      control& c = ctl[s];
      const int valid = tile::items_in_tile(tile, tile_items, n);
      T* const stage = stage_items + s * tile_items;
      const T running = op(c.prefix, c.thread_prefix[r]);
      if (valid == tile_items)
        thread::scan_run<Exclusive, items_per_thread>(stage + r * items_per_thread, running, op);
      else
        thread::scan_run<Exclusive, items_per_thread>(stage + r * items_per_thread, running, op,
                                                      valid - r * items_per_thread);
      if (d_total != nullptr && tile == num_tiles - 1 && r == 0) *d_total = op(c.prefix, c.aggregate);
      lookahead::store_and_release<stages, role_threads>(ctl, s, unreleased, stage, d_out + tile * tile_items, valid,
                                                         r);
    });
    if (r == 0) thread::bulk_wait_all();
  } else if (warp_index == 2 * warps) {
    // Load: one thread.
    if (lane == 0) lookahead::load_tiles<stages, tile_items>(ctl, stage_items, d_in, n, d_tile_counter);
  } else {
    // Look-ahead: one warp.
    lookahead::lookahead_prefixes<Policy::lookahead_chunks, Policy::retry_delay_ns>(
        ctl, tiles, num_tiles, lookback::detail::initial_value(init), op, identity);
  }
#else
  __trap();  // the launcher only launches this kernel where it was compiled for sm_90 or later
#endif
}

}  // namespace lookback::device
