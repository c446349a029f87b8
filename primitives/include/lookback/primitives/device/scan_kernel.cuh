#pragma once
// The single-pass scan kernel: about 2n bytes of traffic (each item read once and written once);
// tiles learn their prefix through the decoupled look-back.
#include <lookback/primitives/block/block_scan.cuh>
#include <lookback/primitives/block/warp_transpose_io.cuh>
#include <lookback/primitives/operators.cuh>
#include <lookback/primitives/scan_carry.cuh>
#include <lookback/primitives/thread/l2_prefetch.cuh>
#include <lookback/primitives/thread/scan_run.cuh>
#include <lookback/primitives/tile/decoupled_lookback.cuh>
#include <lookback/primitives/tile/tile_id.cuh>

#include <cstdint>

namespace lookback::device {

/// Scans tile `tile` whose items are loaded: block scan, look-back, store. Tile 0 starts from `init`
/// (the identity for a plain inclusive scan, or a carried prefix); the last tile leaves the total in
/// `d_total` when there is one.
template <class Policy, bool Exclusive, class OutputIt, class T, class Init, class Op, class StatusArray, class Storage>
__device__ __forceinline__ void scan_tile(std::int64_t tile, int valid, T (&items)[Policy::items_per_thread],
                                          OutputIt d_out, Op op, const Init& init, T* d_total, bool last_tile,
                                          const StatusArray& tiles, Storage& s, bool vectors) {
  constexpr int items_per_thread = Policy::items_per_thread;
  using io = block::warp_transpose_io<T, Policy::threads, items_per_thread>;
  using block_scan = block::scan<T, Policy::threads>;
  const std::int64_t base = tile * Policy::tile_items;
  const T identity = neutral_of<T>(op);

  T thread_total = items[0];
#pragma unroll
  for (int k = 1; k < items_per_thread; ++k) thread_total = op(thread_total, items[k]);
  T block_total;
  const T thread_prefix = block_scan::exclusive(thread_total, op, identity, block_total, s.scan);

  // Only tile 0 reads the initial value, which may live in device memory.
  const T first = tile == 0 ? lookback::detail::initial_value(init) : identity;
  tile::publish_and_look_back<Policy::initial_delay_ns>(tiles, tile, block_total, op, identity, first, s.tile_prefix);
  __syncthreads();
  if (d_total != nullptr && last_tile && threadIdx.x == 0) *d_total = op(s.tile_prefix, block_total);

  thread::scan_run<Exclusive, items_per_thread>(items, op(s.tile_prefix, thread_prefix), op);
  io::store(d_out + base, valid, items, s.io, vectors);
}

/// Tile ids come from tile::acquire_tile. (Loading tile blockIdx.x while the id is on the way, and a persistent grid that fetches its next id
/// early, both measured slower: bench/scan_tuning_bench.cu history in policy/scan_policy.cuh.)
template <class Policy, bool Exclusive, class InputIt, class OutputIt, class Init, class Op, class StatusArray>
__global__ void __launch_bounds__(Policy::threads, Policy::min_blocks)
    single_pass_scan_kernel(InputIt d_in, OutputIt d_out, std::int64_t n, Op op, Init init, StatusArray tiles,
                            unsigned* d_tile_counter, bool aligned) {
  using T = lookback::detail::init_value_t<Init>;
  using io = block::warp_transpose_io<T, Policy::threads, Policy::items_per_thread>;
  struct storage {
    typename io::storage io;
    typename block::scan<T, Policy::threads>::storage scan;
    T tile_prefix;
    unsigned tile_id;
  };
  __shared__ storage s;

  const std::int64_t tile = tile::acquire_tile(d_tile_counter, s.tile_id, [&](std::int64_t id) {
    thread::prefetch_tile_ahead<Policy::prefetch_tiles>(d_in, id, Policy::tile_items, n);
  });
  T items[Policy::items_per_thread];
  // 16-byte vector accesses when the arrays are aligned and the policy asks for them.
  const bool vectors = Policy::vector_access && aligned;
  const int valid = tile::items_in_tile(tile, Policy::tile_items, n);
  io::load(d_in + tile * Policy::tile_items, valid, items, neutral_of<T>(op), s.io, vectors);
  scan_tile<Policy, Exclusive>(tile, valid, items, d_out, op, init, lookback::detail::total_slot(init),
                               tile == static_cast<std::int64_t>(gridDim.x) - 1, tiles, s, vectors);
}

}  // namespace lookback::device
