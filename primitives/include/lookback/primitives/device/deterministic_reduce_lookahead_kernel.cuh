#pragma once
// The deterministic reduction (deterministic_scan.cuh states the association; its result is the
// deterministic scan's total) on the pipeline of the look-ahead scans (device/lookahead_pipeline.cuh),
// for Hopper and later. A reduction needs no tile's prefix, only the windows' aggregates folded in
// order, so the pipeline keeps four roles:
//   reduce (device/deterministic_lookahead_granules.cuh): each granule's aggregate, published;
//   load (one thread): tile ids and bulk copies, as the scans';
//   window (one warp): where the tile closes its window (or is the last tile), the window's aggregate,
//     its granules' aggregates folded from the first, published;
//   chain (one warp, busy in block 0): the start and the windows' aggregates folded left to right
//     as they are published, into the total.
// Nothing that frees a stage waits on another block's window: with each window's prefix found by a
// look-back in the window warp (tile/ordered_lookback.cuh), before its stage could be freed, blocks
// queued behind each other's look-backs and 2^28 float32 took 1.53 ms against 0.60 on the look-back
// kernel (H100).
// The look-back kernel without its stores (device/deterministic_scan_kernel.cuh) forms every tile's
// prefix and holds its items in registers through it: 1.7x the default reduction's time at 2^24 and
// 2^28 on the H100, where this kernel takes 1.07x and 1.02x (policy/scan_policy.cuh).
#include <lookback/primitives/device/deterministic_lookahead_granules.cuh>
#include <lookback/primitives/device/lookahead_pipeline.cuh>
#include <lookback/primitives/policy/scan_policy.cuh>
#include <lookback/primitives/scan_carry.cuh>
#include <lookback/primitives/thread/partial.cuh>
#include <lookback/primitives/tile/running_lookahead.cuh>

#include <cstdint>

namespace lookback::device {

/// Launched with Policy::threads threads (the reduce warps, then the load, window and chain warps), at
/// most one block an SM, Policy::stages * tile bytes of dynamic shared memory; d_in 16-byte aligned.
/// `init`: the initial value when `has_start`; `d_total` (may be null) receives the total. Descriptors
/// (granules', windows') and counter zeroed first.
template <class Policy, class T, class Init, class Op, class StatusArray>
__global__ void __launch_bounds__(Policy::threads, 1)
    deterministic_reduce_lookahead_kernel(const T* d_in, std::int64_t n, Op op, Init init, bool has_start, T* d_total,
                                          StatusArray granules, StatusArray windows, unsigned* d_tile_counter) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using part = thread::partial<T>;
  namespace shape = policy::deterministic_granule;
  constexpr int granules_per_tile = Policy::granules_per_tile;
  constexpr int role_warps = Policy::role_warps;
  constexpr int role_threads = role_warps * warp::warp_size;
  constexpr int tile_items = Policy::tile_items;
  constexpr int stages = Policy::stages;
  constexpr int window_granules = shape::window_granules;
  using control = lookahead::deterministic_stage_control<T, granules_per_tile * shape::warps, granules_per_tile, false>;
  __shared__ control ctl[stages];
  extern __shared__ __align__(128) unsigned char deterministic_stage_bytes[];
  T* const stage_items = reinterpret_cast<T*>(deterministic_stage_bytes);

  const std::int64_t num_tiles = (n + tile_items - 1) / tile_items;
  const std::int64_t num_granules = (n + shape::items - 1) / shape::items;
  const int warp_index = static_cast<int>(threadIdx.x) / warp::warp_size;
  const int lane = warp::lane_id();
  lookahead::start_after_clearing(ctl, role_threads, 1);  // the window warp reads each stage's control

  if (warp_index < role_warps) {
    // The stage's items are read once reduced; the window warp's arrival covers its control.
    lookahead::for_each_loaded_tile(ctl, num_tiles, [&](int s, std::int64_t tile) {
      control& c = ctl[s];
      lookahead::reduce_granules<role_warps>(c, stage_items + s * tile_items, tile::items_in_tile(tile, tile_items, n),
                                             tile, op, granules);
      thread::barrier_arrive(&c.sync.reduced);
      thread::barrier_arrive(&c.sync.free);
    });
  } else if (warp_index == role_warps) {
    if (lane == 0) lookahead::load_tiles<stages, tile_items>(ctl, stage_items, d_in, n, d_tile_counter);
  } else if (warp_index == role_warps + 1) {
    // Window: the aggregate of each window this block's tiles close (the last tile closes the last
    // window). It arrives on each stage's `free` barrier, so that no stage is loaded again before it
    // has read the stage's control, and waits on reductions alone. It waits for every tile's
    // reduction, read or not, so that no phase of `reduced` goes unobserved (synccheck's "missing
    // wait" on the reduce warps otherwise); its arrival then frees no stage later than theirs.
    for (int it = 0;; ++it) {
      control& c = ctl[it % stages];
      const std::int64_t tile = lookahead::warp_wait_tile(ctl, it);
      if (tile >= num_tiles) return;
      const std::int64_t first = tile * granules_per_tile;
      const unsigned parity = (it / stages) & 1;
      const bool closes = (first + granules_per_tile) % window_granules == 0 || tile == num_tiles - 1;
      part window_total{T{}, false};
      if (closes) {  // the window's granules before the tile, published by other tiles
        const std::int64_t window_first = first / window_granules * window_granules;
        const int prior = static_cast<int>(first - window_first);
        window_total = lookahead::fold_lanes(window_total, tile::wait_published<T>(granules, window_first, prior),
                                             prior, op);
      }
      thread::barrier_wait(&c.sync.reduced, parity);
      if (closes) {
        const int valid = tile::items_in_tile(tile, tile_items, n);
#pragma unroll
        for (int j = 0; j < granules_per_tile; ++j)
          if (j * shape::items < valid) window_total = thread::then(window_total, c.granule_aggregate[j], op);
        if (lane == 0) windows.publish(first / window_granules, tile::status::aggregate, window_total.value);
      }
      __syncwarp();
      if (lane == 0) thread::barrier_arrive(&c.sync.free);
    }
  } else {
    // Chain: in block 0 alone, the start and every window's aggregate folded left to right, 32 windows
    // a round of reads, into the total. It waits on window warps, which never wait on it.
    if (blockIdx.x != 0) return;
    const std::int64_t num_windows = (num_granules + window_granules - 1) / window_granules;
    part total = has_start ? part{lookback::detail::initial_value(init), true} : part{T{}, false};
    for (std::int64_t w = 0; w < num_windows; w += warp::warp_size) {
      const int count = num_windows - w < warp::warp_size ? static_cast<int>(num_windows - w) : warp::warp_size;
      total = lookahead::fold_lanes(total, tile::wait_published<T>(windows, w, count), count, op);
    }
    if (lane == 0 && d_total != nullptr && total.has) *d_total = total.value;
  }
#else
  __trap();  // the launcher only launches this kernel where it was compiled for sm_90 or later
#endif
}

}  // namespace lookback::device
