#pragma once
// The deterministic scan (deterministic_scan.cuh states the association) on the pipeline of the
// look-ahead scans (device/lookahead_pipeline.cuh), for Hopper and later. A tile holds whole granules.
//   reduce: each granule warp's total (its 32 runs scanned Kogge-Stone), then each granule's aggregate,
//     its 4 warp totals folded in order, which it publishes at once;
//   look-ahead (one warp): folds the aggregates of the tile's window's granules from the window's
//     first, left to right (the local prefixes; a tile that closes its window publishes the window's
//     aggregate), and the aggregates of the windows since its previous tile into the window prefix;
//   scan: each run's items after its window prefix, its local prefix, the granule's earlier warps and
//     the warp's earlier runs, in that order.
// No fold ever waits on another tile's look-ahead except a window's aggregate, which the tile closing
// the window publishes from granule aggregates alone.
#include <lookback/primitives/block/warp_transpose_io.cuh>
#include <lookback/primitives/device/lookahead_pipeline.cuh>
#include <lookback/primitives/policy/scan_policy.cuh>
#include <lookback/primitives/scan_carry.cuh>
#include <lookback/primitives/thread/partial.cuh>
#include <lookback/primitives/tile/running_lookahead.cuh>
#include <lookback/primitives/warp/warp_scan.cuh>

#include <cstdint>

namespace lookback::device {

namespace lookahead {

/// A deterministic stage's hand-overs: its barriers, each granule warp's total (the 512 items of a
/// run's warp: a chunk), each granule's prefix, and the prefix after the tile's last granule.
template <class T, int Chunks, int Granules>
struct deterministic_stage_control {
  stage_sync sync;
  thread::partial<T> warp_total[Chunks];
  thread::partial<T> granule_prefix[Granules];
  thread::partial<T> total;
};

}  // namespace lookahead

/// Launched with Policy::threads threads, at most one block an SM, Policy::stages * tile bytes of
/// dynamic shared memory; d_in and d_out 16-byte aligned. `start`: the initial value when `has_start`;
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
  constexpr int granules_per_tile = Policy::granules_per_tile;
  constexpr int role_warps = Policy::role_warps;
  constexpr int role_threads = role_warps * warp::warp_size;
  constexpr int chunks = granules_per_tile * shape::warps;
  constexpr int chunk_items = shape::run_items * warp::warp_size;
  constexpr int tile_items = Policy::tile_items;
  constexpr int stages = Policy::stages;
  constexpr int window_granules = shape::window_granules;
  using io = block::warp_transpose_io<T, warp::warp_size, shape::run_items>;
  using control = lookahead::deterministic_stage_control<T, chunks, granules_per_tile>;
  __shared__ control ctl[stages];
  static_assert(2 * role_warps * io::padded_warp_items * sizeof(T) + stages * sizeof(control) <= 48 * 1024,
                "the warps' transposition rows must fit a block's 48 KiB of static shared memory: fewer role warps");
  __shared__ T io_rows[2 * role_warps][io::padded_warp_items];  // the reduce and scan warps' transpositions
  extern __shared__ __align__(128) unsigned char deterministic_stage_bytes[];
  T* const stage_items = reinterpret_cast<T*>(deterministic_stage_bytes);

  const std::int64_t num_tiles = (n + tile_items - 1) / tile_items;
  const std::int64_t num_granules = (n + shape::items - 1) / shape::items;
  const int warp_index = static_cast<int>(threadIdx.x) / warp::warp_size;
  const int lane = warp::lane_id();
  lookahead::init_barriers(ctl, role_threads);
  __syncthreads();

  // A chunk's items, blocked (lane l: run l), and each run's Kogge-Stone value over the chunk's runs.
  const auto load_chunk = [&](const T* chunk, int chunk_valid, bool full, T (&items)[shape::run_items], T* row) {
    io::load_warp(chunk, chunk_valid, full, items, T{}, row, true);
    const int first_item = lane * shape::run_items;
    part run{items[0], first_item < chunk_valid};
#pragma unroll
    for (int k = 1; k < shape::run_items; ++k)
      if (first_item + k < chunk_valid) run = thread::then(run, items[k], op);
    return warp::inclusive_scan(run, combine{op});
  };

  if (warp_index < role_warps) {
    // Reduce: warp w takes chunks w, w + role_warps, ... of each tile.
    const int r = static_cast<int>(threadIdx.x);
    for (int it = 0;; ++it) {
      const int s = it % stages;
      control& c = ctl[s];
      thread::barrier_wait(&c.sync.loaded, (it / stages) & 1);
      const std::int64_t tile = c.sync.tile;
      if (tile >= num_tiles) return;
      const int valid = tile::items_in_tile(tile, tile_items, n);
      const T* const stage = stage_items + s * tile_items;
#pragma unroll
      for (int q = warp_index; q < chunks; q += role_warps) {
        T items[shape::run_items];
        const part x = load_chunk(stage + q * chunk_items, valid - q * chunk_items, valid == tile_items, items,
                                  io_rows[warp_index]);
        if (lane == warp::warp_size - 1) c.warp_total[q] = x;
      }
      thread::named_barrier(1, role_threads);
      if (r < granules_per_tile) {
        part aggregate{T{}, false};
        for (int w = 0; w < shape::warps; ++w) aggregate = combine{op}(aggregate, c.warp_total[r * shape::warps + w]);
        if (aggregate.has) granules.publish(tile * granules_per_tile + r, tile::status::aggregate, aggregate.value);
      }
      thread::barrier_arrive(&c.sync.reduced);
    }
  } else if (warp_index < 2 * role_warps) {
    // Scan: the same chunks again, with their prefixes.
    const int r = static_cast<int>(threadIdx.x) - role_threads;
    const int scan_warp = warp_index - role_warps;
    int unreleased = -1;
    for (int it = 0;; ++it) {
      const int s = it % stages;
      const unsigned parity = (it / stages) & 1;
      control& c = ctl[s];
      thread::barrier_wait(&c.sync.loaded, parity);
      const std::int64_t tile = c.sync.tile;
      if (tile >= num_tiles) break;
      thread::barrier_wait(&c.sync.reduced, parity);
      thread::barrier_wait(&c.sync.prefix_known, parity);
      const int valid = tile::items_in_tile(tile, tile_items, n);
      T* const stage = stage_items + s * tile_items;
#pragma unroll
      for (int q = scan_warp; q < chunks; q += role_warps) {
        T items[shape::run_items];
        const int chunk_valid = valid - q * chunk_items;
        const bool full = valid == tile_items;
        const part x = load_chunk(stage + q * chunk_items, chunk_valid, full, items, io_rows[warp_index]);
        const part before_run = warp::shfl_up(x, 1);
        const int granule_warp = q % shape::warps;
        const int first_chunk = q - granule_warp;
        part acc = c.granule_prefix[q / shape::warps];
        if (granule_warp > 0) {
          part earlier = c.warp_total[first_chunk];
          for (int w = first_chunk + 1; w < q; ++w) earlier = combine{op}(earlier, c.warp_total[w]);
          acc = combine{op}(acc, earlier);
        }
        if (lane > 0) acc = combine{op}(acc, before_run);
        const int first_item = lane * shape::run_items;
#pragma unroll
        for (int k = 0; k < shape::run_items; ++k) {
          if (full || first_item + k < chunk_valid) {
            if constexpr (Exclusive) {
              const T item = items[k];
              items[k] = acc.value;
              acc = thread::then(acc, item, op);
            } else {
              acc = thread::then(acc, items[k], op);
              items[k] = acc.value;
            }
          }
        }
        io::store_warp(stage + q * chunk_items, chunk_valid, full, items, io_rows[warp_index], true);
        __syncwarp();  // the next chunk's load writes the row this store has just read
      }
      const std::int64_t last_granule = num_granules - 1;
      if (d_total != nullptr && r == 0 && c.total.has && last_granule / granules_per_tile == tile) *d_total = c.total.value;
      lookahead::store_and_release<stages, role_threads>(ctl, s, unreleased, stage, d_out + tile * tile_items, valid,
                                                         r);
    }
    if (r == 0) thread::bulk_wait_all();
  } else if (warp_index == 2 * role_warps) {
    if (lane == 0) lookahead::load_tiles<stages, tile_items>(ctl, stage_items, d_in, n, d_tile_counter);
  } else {
    // Look-ahead: the window prefix of window `window_done`, kept from tile to tile.
    part window_prefix = has_start ? part{lookback::detail::initial_value(init), true} : part{T{}, false};
    std::int64_t window_done = 0;
    for (int it = 0;; ++it) {
      control& c = ctl[it % stages];
      const std::int64_t tile = lookahead::warp_wait_tile(ctl, it);
      if (tile >= num_tiles) return;
      const std::int64_t first = tile * granules_per_tile;
      const std::int64_t window = first / window_granules;
      const std::int64_t window_first = window * window_granules;
      const std::int64_t end = first + granules_per_tile < num_granules ? first + granules_per_tile : num_granules;
      // The window's granule aggregates up to the tile's last granule, folded from the window's first.
      const T aggregate = tile::wait_published<T>(granules, window_first, static_cast<int>(end - window_first));
      part local{T{}, false};
      for (int i = 0; i < static_cast<int>(first - window_first); ++i)
        local = thread::then(local, warp::shfl(aggregate, i), op);
      part before[granules_per_tile];
#pragma unroll
      for (int j = 0; j < granules_per_tile; ++j) {
        before[j] = local;
        if (first + j < end) local = thread::then(local, warp::shfl(aggregate, static_cast<int>(first + j - window_first)), op);
      }
      if (lane == 0 && end % window_granules == 0 && end == first + granules_per_tile)
        windows.publish(window, tile::status::aggregate, local.value);
      // The window aggregates since the last tile's window.
      while (window_done < window) {
        const int count = window - window_done < warp::warp_size ? static_cast<int>(window - window_done) : warp::warp_size;
        const T window_aggregate = tile::wait_published<T>(windows, window_done, count);
        for (int i = 0; i < count; ++i) window_prefix = thread::then(window_prefix, warp::shfl(window_aggregate, i), op);
        window_done += count;
      }
      if (lane == 0) {
#pragma unroll
        for (int j = 0; j < granules_per_tile; ++j) c.granule_prefix[j] = combine{op}(window_prefix, before[j]);
        c.total = combine{op}(window_prefix, local);
        thread::barrier_arrive(&c.sync.prefix_known);
      }
    }
  }
#else
  __trap();  // the launcher only launches this kernel where it was compiled for sm_90 or later
#endif
}

}  // namespace lookback::device
