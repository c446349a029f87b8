#pragma once
// The deterministic single-pass scan: the same bits on every run, for every tile policy and on every
// GPU. Inside a granule (policy::deterministic_granule: 4 warps of 32 runs of 16 items) the
// association is fixed by the granule's shape: each thread folds its run left to right, a warp scans
// its 32 run totals Kogge-Stone, the granule folds its 4 warp totals in order. Across granules the
// look-back always forms the left fold of the granules' aggregates (tile/granule_lookback.cuh).
// cpu/deterministic_scan.hpp computes the same association, bit for bit.
#include <lookback/primitives/block/warp_transpose_io.cuh>
#include <lookback/primitives/operators.cuh>
#include <lookback/primitives/policy/scan_policy.cuh>
#include <lookback/primitives/scan_carry.cuh>
#include <lookback/primitives/thread/partial.cuh>
#include <lookback/primitives/tile/granule_lookback.cuh>
#include <lookback/primitives/tile/tile_id.cuh>
#include <lookback/primitives/warp/warp_scan.cuh>

#include <cstdint>

namespace lookback::device {

namespace detail {
/// Combines partial values, an empty right side leaving the left as it is: the items past the end of
/// the array are absent from every fold, rather than counted as the identity.
template <class Op>
struct partial_op {
  Op op;
  template <class T>
  __device__ thread::partial<T> operator()(const thread::partial<T>& a, const thread::partial<T>& b) const {
    return b.has ? thread::then(a, b.value, op) : a;
  }
};
}  // namespace detail

/// `start`: the initial value (an exclusive scan's init, a carried prefix) when `has_start`. `store`
/// false computes the total alone (the deterministic reduce). `d_total` (may be null) receives the
/// inclusive prefix of the granule holding the last item: start and every granule aggregate, folded.
template <class Policy, bool Exclusive, class InputIt, class OutputIt, class Init, class TotalIt, class Op,
          class StatusArray>
__global__ void __launch_bounds__(Policy::threads)
    deterministic_scan_kernel(InputIt d_in, OutputIt d_out, std::int64_t n, Op op, Init init, bool has_start, bool store,
                              TotalIt d_total, StatusArray granules, unsigned* d_tile_counter, bool aligned) {
  using T = lookback::detail::init_value_t<Init>;
  using part = thread::partial<T>;
  constexpr int items_per_thread = Policy::items_per_thread;
  constexpr int warps = Policy::threads / warp::warp_size;
  constexpr int granule_warps = policy::deterministic_granule::warps;
  using io = block::warp_transpose_io<T, Policy::threads, items_per_thread>;
  struct storage {
    typename io::storage io;
    part warp_totals[warps];
    part granule_prefix[Policy::granules_per_tile];
    unsigned tile_id;
  };
  __shared__ storage s;

  const std::int64_t tile = tile::acquire_tile(d_tile_counter, s.tile_id);
  const int valid = tile::items_in_tile(tile, Policy::tile_items, n);
  T items[items_per_thread];
  const bool vectors = Policy::vector_access && aligned;
  io::load(d_in + tile * Policy::tile_items, valid, items, identity_of<T>(op), s.io, vectors);

  const int lane = warp::lane_id();
  const int warp_index = static_cast<int>(threadIdx.x) / warp::warp_size;
  const int first_item = static_cast<int>(threadIdx.x) * items_per_thread;  // in the tile
  // The run's total, left to right over its items that exist.
  part run{items[0], first_item < valid};
#pragma unroll
  for (int k = 1; k < items_per_thread; ++k)
    if (first_item + k < valid) run = thread::then(run, items[k], op);
  const part x = warp::inclusive_scan(run, detail::partial_op<Op>{op});
  const part before_run = warp::shfl_up(x, 1);  // lane 0: nothing before it in the warp
  if (lane == warp::warp_size - 1) s.warp_totals[warp_index] = x;
  __syncthreads();

  if (warp_index == 0) {
    // Lane j < granules_per_tile: granule j's aggregate, its warp totals folded in order.
    part aggregate{T{}, false};
    if (lane < Policy::granules_per_tile)
      for (int w = 0; w < granule_warps; ++w)
        aggregate = detail::partial_op<Op>{op}(aggregate, s.warp_totals[lane * granule_warps + w]);
    const std::int64_t first = tile * Policy::granules_per_tile;
    if (lane < Policy::granules_per_tile && aggregate.has) granules.publish(first + lane, tile::status::aggregate, aggregate.value);
    part prefix = tile::granule_exclusive_prefix<Policy::initial_delay_ns, T>(
        granules, first, op, [&] { return part{lookback::detail::initial_value(init), has_start}; });
    const std::int64_t last_granule = (n - 1) / policy::deterministic_granule::items;
#pragma unroll
    for (int j = 0; j < Policy::granules_per_tile; ++j) {
      const part a = warp::shfl(aggregate, j);
      if (!a.has) break;  // past the end of the array
      if (lane == 0) s.granule_prefix[j] = prefix;
      prefix = thread::then(prefix, a.value, op);
      if (lane == 0) {
        granules.publish(first + j, tile::status::inclusive_prefix, prefix.value);
        if (first + j == last_granule && d_total != nullptr) *d_total = prefix.value;
      }
    }
  }
  if (!store) return;
  __syncthreads();

  // The run's items: the granule's prefix, the earlier warps of the granule, the earlier runs of the
  // warp, then the items, in that order.
  const int granule = warp_index / granule_warps;
  part acc = s.granule_prefix[granule];
  const int first_warp = granule * granule_warps;
  if (warp_index > first_warp) {
    part earlier = s.warp_totals[first_warp];
    for (int w = first_warp + 1; w < warp_index; ++w) earlier = detail::partial_op<Op>{op}(earlier, s.warp_totals[w]);
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
