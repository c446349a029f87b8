#pragma once
// The scan of arrays small enough to stay in L2 (policy::scan<T>::reduce_then_scan_max_bytes), in two
// kernels and no storage to clear. The first publishes each tile's aggregate. The second, launched
// dependent on it (detail/dependent_launch.cuh), loads and scans its tile while the first still runs,
// then waits for it and folds the aggregates before its tile. Each item is read twice, the second time
// from L2; no tile waits on another, and nothing needs the clearing kernel a look-back starts after,
// whose fixed cost is most of a look-back scan's time at these sizes.
#include <lookback/primitives/block/block_reduce.cuh>
#include <lookback/primitives/block/block_scan.cuh>
#include <lookback/primitives/block/warp_transpose_io.cuh>
#include <lookback/primitives/detail/dependent_launch.cuh>
#include <lookback/primitives/operators.cuh>
#include <lookback/primitives/scan_carry.cuh>
#include <lookback/primitives/thread/scan_run.cuh>
#include <lookback/primitives/tile/tile_id.cuh>

#include <cstdint>

namespace lookback::device {

/// A thread's items combined in order.
template <int Items, class T, class Op>
__device__ __forceinline__ T fold_run(const T (&items)[Items], Op op) {
  T total = items[0];
#pragma unroll
  for (int k = 1; k < Items; ++k) total = op(total, items[k]);
  return total;
}

/// d_aggregates[t] = the items of tile t combined in order. Lets the scan kernel launch at once.
template <class Policy, class InputIt, class T, class Op>
__global__ void __launch_bounds__(Policy::threads, Policy::min_blocks)
    tile_aggregates_kernel(InputIt d_in, std::int64_t n, Op op, T* d_aggregates, bool vectors) {
  lookback::detail::allow_dependent_launch();
  using io = block::warp_transpose_io<T, Policy::threads, Policy::items_per_thread>;
  using block_reduce = block::reduce<T, Policy::threads>;
  __shared__ typename io::storage s_io;
  __shared__ typename block_reduce::storage s_reduce;
  const std::int64_t tile = blockIdx.x;
  const T identity = neutral_of<T>(op);
  T items[Policy::items_per_thread];
  io::load(d_in + tile * Policy::tile_items, tile::items_in_tile(tile, Policy::tile_items, n), items, identity, s_io,
           vectors);
  const T total = block_reduce::run(fold_run(items, op), op, identity, s_reduce);
  if (threadIdx.x == 0) d_aggregates[tile] = total;
}

/// Launched dependent on tile_aggregates_kernel over the same tiles: each tile's results, and the
/// total after the last tile where `init` carries one.
template <class Policy, bool Exclusive, class InputIt, class OutputIt, class Init, class Op>
__global__ void __launch_bounds__(Policy::threads, Policy::min_blocks)
    scan_from_aggregates_kernel(InputIt d_in, OutputIt d_out, std::int64_t n, Op op, Init init,
                                const lookback::detail::init_value_t<Init>* d_aggregates, bool vectors) {
  using T = lookback::detail::init_value_t<Init>;
  using io = block::warp_transpose_io<T, Policy::threads, Policy::items_per_thread>;
  using block_scan = block::scan<T, Policy::threads>;
  __shared__ typename io::storage s_io;
  __shared__ typename block_scan::storage s_scan;
  __shared__ typename block::reduce<T, Policy::threads>::storage s_reduce;
  __shared__ T s_tile_prefix;
  const std::int64_t tile = blockIdx.x;
  const T identity = neutral_of<T>(op);
  const int valid = tile::items_in_tile(tile, Policy::tile_items, n);
  // The input is not the aggregates kernel's output: it may be read before that kernel ends.
  T items[Policy::items_per_thread];
  io::load(d_in + tile * Policy::tile_items, valid, items, identity, s_io, vectors);
  T block_total;
  const T thread_prefix = block_scan::exclusive(fold_run(items, op), op, identity, block_total, s_scan);

  lookback::detail::wait_for_prior_grid();
  const T before = block::reduce<T, Policy::threads>::first_values(d_aggregates, tile, op, identity, s_reduce);
  if (threadIdx.x == 0) {
    const T prefix = op(lookback::detail::initial_value(init), before);
    s_tile_prefix = prefix;
    if (tile == static_cast<std::int64_t>(gridDim.x) - 1)
      if (T* const d_total = lookback::detail::total_slot(init)) *d_total = op(prefix, block_total);
  }
  __syncthreads();
  thread::scan_run<Exclusive, Policy::items_per_thread>(items, op(s_tile_prefix, thread_prefix), op);
  io::store(d_out + tile * Policy::tile_items, valid, items, s_io, vectors);
}

}  // namespace lookback::device
