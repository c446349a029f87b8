#pragma once
// The single-pass scan kernel: one tile per block, about 2n bytes of traffic (each item read once and
// written once); tiles learn their prefix through the decoupled look-back.
#include <lookback/primitives/block/block_scan.cuh>
#include <lookback/primitives/block/warp_transpose_io.cuh>
#include <lookback/primitives/operators.cuh>
#include <lookback/primitives/policy/scan_policy.cuh>
#include <lookback/primitives/thread/vector16.cuh>
#include <lookback/primitives/tile/decoupled_lookback.cuh>

#include <cstdint>

namespace lookback::device {

template <class Policy, bool Exclusive, class InputIt, class OutputIt, class T, class Op, class StatusArray>
__global__ void __launch_bounds__(Policy::threads)
    single_pass_scan_kernel(InputIt d_in, OutputIt d_out, std::int64_t n, Op op, T init, StatusArray tiles,
                            unsigned* d_tile_counter, bool aligned) {
  constexpr int items_per_thread = Policy::items_per_thread;
  using io = block::warp_transpose_io<T, Policy::threads, items_per_thread>;
  using block_scan = block::scan<T, Policy::threads>;
  __shared__ typename io::storage io_storage;
  __shared__ typename block_scan::storage scan_storage;
  __shared__ unsigned tile_id;
  __shared__ T tile_prefix;

  // Tile ids in the order blocks start, not blockIdx: a tile's predecessors are then all running.
  if (threadIdx.x == 0) tile_id = atomicAdd(d_tile_counter, 1u);
  __syncthreads();
  const std::int64_t tile = tile_id;
  const std::int64_t base = tile * Policy::tile_items;
  const int valid = static_cast<int>(n - base < Policy::tile_items ? n - base : Policy::tile_items);
  const T identity = identity_of<T>(op);

  // Full tiles of aligned arrays may skip the shared-memory transposition (policy permitting).
  constexpr bool may_use_vectors = Policy::io == policy::tile_io::blocked_vectors &&
                                   thread::vectorizable<InputIt, T> && thread::vectorizable<OutputIt, T>;
  const bool use_vectors = may_use_vectors && aligned && valid == Policy::tile_items;
  using vector_io = thread::blocked_vector_io<T, items_per_thread>;

  T items[items_per_thread];
  if constexpr (may_use_vectors) {
    if (use_vectors) vector_io::load(d_in + base, items);
  }
  if (!use_vectors) io::load(d_in + base, valid, items, identity, io_storage);

  T thread_total = items[0];
#pragma unroll
  for (int k = 1; k < items_per_thread; ++k) thread_total = op(thread_total, items[k]);
  T block_total;
  const T thread_prefix = block_scan::exclusive(thread_total, op, identity, block_total, scan_storage);

  if (tile == 0) {
    if (threadIdx.x == 0) {
      const T first = Exclusive ? init : identity;
      tiles.publish(0, tile::status::inclusive_prefix, op(first, block_total));
      tile_prefix = first;
    }
  } else if (threadIdx.x < warp::warp_size) {
    if (threadIdx.x == 0) tiles.publish(tile, tile::status::aggregate, block_total);
    const T prefix = tile::lookback_exclusive_prefix<Policy::spin_delay_ns>(tiles, tile, op, identity);
    if (threadIdx.x == 0) {
      tiles.publish(tile, tile::status::inclusive_prefix, op(prefix, block_total));
      tile_prefix = prefix;
    }
  }
  __syncthreads();

  T running = op(tile_prefix, thread_prefix);
#pragma unroll
  for (int k = 0; k < items_per_thread; ++k) {
    if constexpr (Exclusive) {
      const T item = items[k];
      items[k] = running;
      running = op(running, item);
    } else {
      running = op(running, items[k]);
      items[k] = running;
    }
  }
  if constexpr (may_use_vectors) {
    if (use_vectors) vector_io::store(d_out + base, items);
  }
  if (!use_vectors) io::store(d_out + base, valid, items, io_storage);
}

}  // namespace lookback::device
