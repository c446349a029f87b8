#pragma once
// The deterministic single-pass scan: the same bits on every run, for every tile policy and on every
// GPU. Inside a granule (policy::deterministic_granule: 4 warps of 32 runs of 17 items) the
// association is fixed by the granule's shape: each thread folds its run left to right, a warp scans
// its 32 run totals Kogge-Stone, the granule folds its 4 warp totals in order. Across granules, two
// levels of windows of 32 granules: a granule's prefix is its window's prefix (the left fold of the
// start and the earlier windows' aggregates) then the left fold of the window's earlier granules.
// Both folds come from look-backs (tile/ordered_lookback.cuh), one over the granules of the tile's
// window, one over the windows; the second spans 32 windows a read, so the chain of prefixes
// advances 256 tiles of 4-byte values per round trip rather than 8.
// cpu/deterministic_scan.hpp computes the same association, bit for bit.
#include <lookback/primitives/block/warp_transpose_io.cuh>
#include <lookback/primitives/operators.cuh>
#include <lookback/primitives/policy/scan_policy.cuh>
#include <lookback/primitives/scan_carry.cuh>
#include <lookback/primitives/thread/l2_prefetch.cuh>
#include <lookback/primitives/thread/partial.cuh>
#include <lookback/primitives/tile/ordered_lookback.cuh>
#include <lookback/primitives/tile/tile_id.cuh>
#include <lookback/primitives/warp/warp_scan.cuh>

#include <cstdint>

namespace lookback::device {

/// `start`: the initial value (an exclusive scan's init, a carried prefix) when `has_start`. `store`
/// false computes the total alone (the deterministic reduce). `d_total` (may be null) receives the
/// total: the start, then each window's aggregate (the last window's up to the last item), folded. `granules` holds each granule's aggregate,
/// then its inclusive prefix within its window; `windows` each window's aggregate, then its
/// inclusive prefix.
template <class Policy, bool Exclusive, class InputIt, class OutputIt, class Init, class TotalIt, class Op,
          class StatusArray>
__global__ void __launch_bounds__(Policy::threads, Policy::min_blocks_per_sm)
    deterministic_scan_kernel(InputIt d_in, OutputIt d_out, std::int64_t n, Op op, Init init, bool has_start, bool store,
                              TotalIt d_total, StatusArray granules, StatusArray windows, unsigned* d_tile_counter,
                              bool aligned) {
  using T = lookback::detail::init_value_t<Init>;
  using part = thread::partial<T>;
  using combine = thread::partial_op<Op>;
  constexpr int items_per_thread = Policy::items_per_thread;
  constexpr int warps = Policy::threads / warp::warp_size;
  constexpr int granule_warps = policy::deterministic_granule::warps;
  constexpr int window_granules = Policy::window_granules;
  using io = block::warp_transpose_io<T, Policy::threads, items_per_thread>;
  struct storage {
    typename io::storage io;
    part warp_totals[warps];
    part local_before[Policy::granules_per_tile + 1];  // [j]: the window's granules before the tile's j-th, folded
    part window_aggregate;                           // set by a tile that closes its window
    part window_prefix;
    T fold[2][warp::warp_size];  // the two look-back warps' folds
    unsigned tile_id;
  };
  __shared__ storage s;

  const std::int64_t tile = tile::acquire_tile(d_tile_counter, s.tile_id, [&](std::int64_t id) {
    thread::prefetch_tile_ahead<Policy::prefetch_tiles>(d_in, id, Policy::tile_items, n);
  });
  const int valid = tile::items_in_tile(tile, Policy::tile_items, n);
  T items[items_per_thread];
  const bool vectors = Policy::vector_access && aligned;
  io::load(d_in + tile * Policy::tile_items, valid, items, neutral_of<T>(op), s.io, vectors);

  const int lane = warp::lane_id();
  const int warp_index = static_cast<int>(threadIdx.x) / warp::warp_size;
  const int first_item = static_cast<int>(threadIdx.x) * items_per_thread;  // in the tile
  // The run's total, left to right over its items that exist.
  part run{items[0], first_item < valid};
#pragma unroll
  for (int k = 1; k < items_per_thread; ++k)
    if (first_item + k < valid) run = thread::then(run, items[k], op);
  const part x = warp::inclusive_scan(run, combine{op});
  const part before_run = warp::shfl_up(x, 1);  // lane 0: nothing before it in the warp
  if (lane == warp::warp_size - 1) s.warp_totals[warp_index] = x;
  __syncthreads();

  const std::int64_t first = tile * Policy::granules_per_tile;
  const std::int64_t window = first / window_granules;
  const bool closes_window = (first + Policy::granules_per_tile) % window_granules == 0;
  // The two look-back warps set their items aside in their rows of the io storage (free between the
  // load and the store) for the look-back's length: with the items dead in registers there, the
  // kernel fits 32 registers a thread without spilling, four 512-thread blocks an SM.
  if (warp_index == 0) {
    io::set_aside(items, s.io);
    // Lane j < granules_per_tile: granule j's aggregate, its warp totals folded in order. A window's
    // first granule is its own prefix within the window.
    part aggregate{T{}, false};
    if (lane < Policy::granules_per_tile)
      for (int w = 0; w < granule_warps; ++w) aggregate = combine{op}(aggregate, s.warp_totals[lane * granule_warps + w]);
    if (lane < Policy::granules_per_tile && aggregate.has)
      granules.publish(first + lane,
                       (first + lane) % window_granules == 0 ? tile::status::inclusive_prefix : tile::status::aggregate,
                       aggregate.value);
    part local = tile::ordered_exclusive_prefix<0, T>(granules, first, window * window_granules, op,
                                                      [] { return part{T{}, false}; }, s.fold[0]);
    if (lane == 0) s.local_before[0] = local;
#pragma unroll
    for (int j = 0; j < Policy::granules_per_tile; ++j) {
      const part a = warp::shfl(aggregate, j);
      if (!a.has) break;  // past the end of the array
      local = thread::then(local, a.value, op);
      if (lane == 0) s.local_before[j + 1] = local;
      if (lane == 0 && (first + j) % window_granules != 0)
        granules.publish(first + j, tile::status::inclusive_prefix, local.value);
    }
    if (lane == 0 && closes_window) {
      s.window_aggregate = local;
      if (local.has) windows.publish(window, tile::status::aggregate, local.value);
    }
    io::take_back(items, s.io);
  } else if (warp_index == 1) {
    io::set_aside(items, s.io);
    const part prefix = tile::ordered_exclusive_prefix<Policy::initial_delay_ns, T>(
        windows, window, 0, op,
        [&] { return has_start ? part{lookback::detail::initial_value(init), true} : part{T{}, false}; }, s.fold[1]);
    if (lane == 0) s.window_prefix = prefix;
    io::take_back(items, s.io);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    if (closes_window && s.window_aggregate.has)
      windows.publish(window, tile::status::inclusive_prefix, combine{op}(s.window_prefix, s.window_aggregate).value);
    const std::int64_t last_granule = (n - 1) / policy::deterministic_granule::items;
    if (d_total != nullptr && last_granule >= first && last_granule < first + Policy::granules_per_tile) {
      // The window's prefix, then the window's granules up to the last folded on their own: the
      // prefix the next window would get, so that chunks at window multiples carry one scan's bits.
      *d_total = combine{op}(s.window_prefix, s.local_before[last_granule - first + 1]).value;
    }
  }
  if (!store) return;

  // The run's items: the window's prefix, the window's earlier granules, the earlier warps of the
  // granule, the earlier runs of the warp, then the items, in that order.
  const int granule = warp_index / granule_warps;
  part acc = combine{op}(s.window_prefix, s.local_before[granule]);
  const int first_warp = granule * granule_warps;
  if (warp_index > first_warp) {
    part earlier = s.warp_totals[first_warp];
    for (int w = first_warp + 1; w < warp_index; ++w) earlier = combine{op}(earlier, s.warp_totals[w]);
    acc = thread::then(acc, earlier.value, op);
  }
  if (lane > 0) acc = thread::then(acc, before_run.value, op);
#pragma unroll
  for (int k = 0; k < items_per_thread; ++k) {
    if constexpr (Exclusive) {
      const T item = items[k];
      items[k] = acc.value;
      acc = thread::then(acc, item, op);
    } else {
      acc = thread::then(acc, items[k], op);
      items[k] = acc.value;
    }
  }
  io::store(d_out + tile * Policy::tile_items, valid, items, s.io, vectors);
}

}  // namespace lookback::device
