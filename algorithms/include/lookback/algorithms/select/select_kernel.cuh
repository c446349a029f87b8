#pragma once
// Stream compaction in one pass: each tile decides which items it keeps, counts them, takes its output
// offset through the decoupled look-back (the scan's machinery, over counts), and stores its kept
// items, staged in shared memory so that the global stores are contiguous. About n reads plus k
// writes. Partition also stores the rejected items, from the end of the output backwards (CUB's
// order), which needs no total before the last tile. Small arrays take two kernels instead (at the
// end of this file), which learn each tile's offset from counts rather than a look-back.
#include <lookback/primitives/block/block_reduce.cuh>
#include <lookback/primitives/block/block_scan.cuh>
#include <lookback/primitives/block/warp_transpose_io.cuh>
#include <lookback/primitives/detail/dependent_launch.cuh>
#include <lookback/primitives/operators.cuh>
#include <lookback/primitives/thread/l2_prefetch.cuh>
#include <lookback/primitives/thread/vector16.cuh>
#include <lookback/primitives/tile/decoupled_lookback.cuh>
#include <lookback/primitives/tile/tile_id.cuh>

#include <cstdint>

namespace lookback::select::device {

/// Counts before a tile travel as 64-bit values: more than 2^32 items may be kept.
using count_t = unsigned long long;

/// Where slot j of a compacted tile lives in the staging. Padded: one item of padding every 32, since
/// each thread stages its items to consecutive slots, and where nearly every item is staged (kept, or
/// any item for partition) a warp's unpadded stores fall 16 to a bank. The index arithmetic costs
/// sparser tiles more than their conflicts do, so they stage unpadded.
template <bool Padded>
__host__ __device__ constexpr int staging_index(int j) {
  return Padded ? block::bank_padded(j) : j;
}

/// The staging's slots: a tile, and room to start up to a vector's width in.
template <class Policy, class T>
inline constexpr int staging_slots = Policy::tile_items + thread::vector16<T>::size;

/// Whether items of T ever stage padded: a padded vector is gathered item by item, 16 loads a vector
/// for 1-byte items and 8 for 2-byte ones, not measured against their conflicts. Only 4-byte items
/// were measured; 8- and 16-byte ones (2 and 1 loads a vector) pad by the same reasoning.
template <class T>
inline constexpr bool pads_staging = sizeof(T) >= 4;

/// Stages a tile's kept items (and partition's rejected ones) in shared memory and stores them:
/// kept item i (counting from the tile's first) goes to out[prefix + i], rejected ones before this
/// tile's from the end of the output backwards. Kept items stage from slot `shift`, where they sit in
/// the same place within a 16-byte vector as their output addresses, so whole vectors go out.
template <class Policy, bool Partition, bool Padded, class T>
__device__ __forceinline__ void stage_and_store(const T (&items)[Policy::items_per_thread], unsigned keep,
                                                int kept_before, int block_kept, count_t prefix, std::int64_t base,
                                                int valid, std::int64_t n, T* staged, T* d_out, bool vector_store) {
  constexpr int items_per_thread = Policy::items_per_thread;
  using vec = thread::vector16<T>;
  constexpr int slots = staging_slots<Policy, T>;
  const int shift = vector_store ? static_cast<int>(prefix % vec::size) : 0;
  const int first = static_cast<int>(threadIdx.x) * items_per_thread;
  int kept_slot = shift + kept_before;
  int rejected_slot = first - kept_before;  // rejected items before this thread's first
#pragma unroll
  for (int k = 0; k < items_per_thread; ++k) {
    if ((keep >> k) & 1u) {
      staged[staging_index<Padded>(kept_slot++)] = items[k];
    } else if (Partition && first + k < valid) {
      staged[staging_index<Padded>(slots - 1 - rejected_slot++)] = items[k];
    }
  }
  __syncthreads();

  // Slot j of the staging belongs at out_base[j].
  T* out_base = d_out + (prefix - shift);
  const int end = shift + block_kept;
  const int first_vector = vector_store ? (shift + vec::size - 1) / vec::size : 0;
  const int end_vector = vector_store ? end / vec::size : 0;
  const int head_end = vector_store && first_vector * vec::size < end ? first_vector * vec::size : end;
  for (int slot = shift + static_cast<int>(threadIdx.x); slot < head_end; slot += Policy::threads)
    out_base[slot] = staged[staging_index<Padded>(slot)];
  for (int v = first_vector + static_cast<int>(threadIdx.x); v < end_vector; v += Policy::threads) {
    // A warp's lanes read consecutive vectors; padded, their items' banks stay distinct but for one
    // two-way conflict a load where the run starts a vector in.
    if constexpr (Padded) {
      vec gathered;
#pragma unroll
      for (int c = 0; c < vec::size; ++c) gathered.items[c] = staged[staging_index<true>(v * vec::size + c)];
      reinterpret_cast<vec*>(out_base)[v] = gathered;
    } else {
      reinterpret_cast<vec*>(out_base)[v] = reinterpret_cast<const vec*>(staged)[v];
    }
  }
  const int tail_begin = end_vector * vec::size > head_end ? end_vector * vec::size : head_end;
  for (int slot = tail_begin + static_cast<int>(threadIdx.x); slot < end; slot += Policy::threads)
    out_base[slot] = staged[staging_index<Padded>(slot)];
  if constexpr (Partition) {
    // Rejected items before this tile: the tile's start less the kept ones.
    const std::int64_t rejected_before = base - static_cast<std::int64_t>(prefix);
    for (int i = threadIdx.x; i < valid - block_kept; i += Policy::threads)
      d_out[n - 1 - (rejected_before + i)] = staged[staging_index<Padded>(slots - 1 - i)];
  }
}

/// A compaction tile's shared memory: the staging (loads of items, then of flags, then the compacted
/// tile, each done with before the next), the counts' block scan and reduction, the tile's output
/// offset and id.
template <class Policy, class T, class Selector>
struct tile_storage {
  using io = block::warp_transpose_io<T, Policy::threads, Policy::items_per_thread>;
  static constexpr std::size_t compacted_bytes =
      (staging_index<pads_staging<T>>(staging_slots<Policy, T> - 1) + 1) * sizeof(T);
  static constexpr std::size_t loads_bytes = sizeof(typename io::storage) > Selector::template shared_bytes<Policy>
                                                 ? sizeof(typename io::storage)
                                                 : Selector::template shared_bytes<Policy>;
  static constexpr std::size_t staging_bytes = loads_bytes > compacted_bytes ? loads_bytes : compacted_bytes;

  alignas(16) unsigned char staging[staging_bytes];
  typename block::scan<int, Policy::threads>::storage scan;
  typename block::reduce<count_t, Policy::threads>::storage reduce;
  count_t tile_prefix;
  unsigned tile_id;
};

/// Loads the tile of `valid` items at `base` and decides which it keeps: bit k of the result, the
/// thread's item k.
template <class Policy, class T, class Selector>
__device__ __forceinline__ unsigned load_and_decide(const T* d_in, const Selector& selector, std::int64_t base,
                                                    int valid, T (&items)[Policy::items_per_thread],
                                                    tile_storage<Policy, T, Selector>& s, bool vectors) {
  using io = typename tile_storage<Policy, T, Selector>::io;
  io::load(d_in + base, valid, items, T{}, *reinterpret_cast<typename io::storage*>(s.staging), vectors);
  static_assert(Policy::items_per_thread <= 32, "a thread's decisions are the bits of one word");
  return selector.template decide<Policy>(base, valid, items, s.staging);
}

/// The rest of a tile once its decisions are made: the block's counts scanned, the tile's output offset
/// found by `find_prefix(block_kept)` (every thread calls it; it leaves the offset in s.tile_prefix), the
/// kept (and partition's rejected) items staged and stored, and the count written by the last tile.
template <class Policy, bool Partition, class T, class Selector, class FindPrefix>
__device__ __forceinline__ void compact_tile(const T (&items)[Policy::items_per_thread], unsigned keep,
                                             std::int64_t base, int valid, std::int64_t n, T* d_out,
                                             std::int64_t* d_num_selected, bool out_aligned,
                                             tile_storage<Policy, T, Selector>& s, FindPrefix find_prefix) {
  const int kept = __popc(keep);
  int block_kept;
  const int kept_before = block::scan<int, Policy::threads>::exclusive(kept, sum{}, 0, block_kept, s.scan);
  find_prefix(block_kept);
  // Also orders every warp's staging reads before the compacted tile overwrites the staging.
  __syncthreads();

  const count_t prefix = s.tile_prefix;
  const bool vector_store = Policy::vector_access && out_aligned;
  T* staged = reinterpret_cast<T*>(s.staging);
  // Uniform over the block (the counts come from the block scan). Partition stages every item. The
  // share is of a whole tile, a constant: as a share of `valid` (keeping it live) or through a lambda,
  // the command's select_if kernel (a run-time comparison) spilled 36 bytes, not 8, and ran 2-3% slower.
  const int staged_items = Partition ? valid : block_kept;
  if (pads_staging<T> && staged_items * 100 > Policy::tile_items * Policy::padded_staging_percent) {
    stage_and_store<Policy, Partition, pads_staging<T>>(items, keep, kept_before, block_kept, prefix, base, valid,
                                                        n, staged, d_out, vector_store);
  } else {
    stage_and_store<Policy, Partition, false>(items, keep, kept_before, block_kept, prefix, base, valid, n, staged,
                                              d_out, vector_store);
  }
  if (threadIdx.x == 0 && base + Policy::tile_items >= n)
    *d_num_selected = static_cast<std::int64_t>(prefix + block_kept);
}

template <class Policy, bool Partition, class T, class Selector, class StatusArray>
__global__ void __launch_bounds__(Policy::threads, Policy::min_blocks)
    select_kernel(const T* d_in, Selector selector, T* d_out, std::int64_t* d_num_selected, std::int64_t n,
                  StatusArray tiles, unsigned* d_tile_counter, bool aligned, bool out_aligned) {
  __shared__ tile_storage<Policy, T, Selector> s;
  const std::int64_t tile = tile::acquire_tile(d_tile_counter, s.tile_id, [&](std::int64_t id) {
    thread::prefetch_tile_ahead<Policy::prefetch_tiles>(d_in, id, Policy::tile_items, n);
    selector.template prefetch_tile_ahead<Policy>(id, n);
  });
  const std::int64_t base = tile * Policy::tile_items;
  const int valid = tile::items_in_tile(tile, Policy::tile_items, n);
  T items[Policy::items_per_thread];
  const unsigned keep =
      load_and_decide<Policy>(d_in, selector, base, valid, items, s, Policy::vector_access && aligned);
  const auto look_back = [&](int block_kept) {
    tile::publish_and_look_back<Policy::initial_delay_ns>(tiles, tile, static_cast<count_t>(block_kept), sum{},
                                                          count_t{0}, count_t{0}, s.tile_prefix);
  };
  compact_tile<Policy, Partition>(items, keep, base, valid, n, d_out, d_num_selected, out_aligned, s, look_back);
}

/// Compaction of arrays small enough to stay in L2, in two kernels and no storage to clear (as the
/// scan's, primitives/device/reduce_then_scan_kernels.cuh): the first counts what each tile keeps.
/// Lets the second launch at once.
template <class Policy, class T, class Selector>
__global__ void __launch_bounds__(Policy::threads)
    count_kept_kernel(const T* d_in, Selector selector, std::int64_t n, count_t* d_counts, bool aligned) {
  lookback::detail::allow_dependent_launch();
  __shared__ tile_storage<Policy, T, Selector> s;
  const std::int64_t tile = blockIdx.x;
  T items[Policy::items_per_thread];
  const unsigned keep = load_and_decide<Policy>(d_in, selector, tile * Policy::tile_items,
                                                tile::items_in_tile(tile, Policy::tile_items, n), items, s,
                                                Policy::vector_access && aligned);
  const count_t kept = block::reduce<count_t, Policy::threads>::run(__popc(keep), sum{}, count_t{0}, s.reduce);
  if (threadIdx.x == 0) d_counts[tile] = kept;
}

/// The second, launched dependent on count_kept_kernel over the same tiles: loads its tile and decides
/// while the counting runs (neither reads what that kernel writes), then waits for it and takes its
/// output offset from the counts of the tiles before.
template <class Policy, bool Partition, class T, class Selector>
__global__ void __launch_bounds__(Policy::threads)
    compact_after_counts_kernel(const T* d_in, Selector selector, T* d_out, std::int64_t* d_num_selected,
                                std::int64_t n, const count_t* d_counts, bool aligned, bool out_aligned) {
  __shared__ tile_storage<Policy, T, Selector> s;
  const std::int64_t tile = blockIdx.x;
  const std::int64_t base = tile * Policy::tile_items;
  const int valid = tile::items_in_tile(tile, Policy::tile_items, n);
  T items[Policy::items_per_thread];
  const unsigned keep =
      load_and_decide<Policy>(d_in, selector, base, valid, items, s, Policy::vector_access && aligned);
  compact_tile<Policy, Partition>(items, keep, base, valid, n, d_out, d_num_selected, out_aligned, s, [&](int) {
    lookback::detail::wait_for_prior_grid();
    const count_t before =
        block::reduce<count_t, Policy::threads>::first_values(d_counts, tile, sum{}, count_t{0}, s.reduce);
    if (threadIdx.x == 0) s.tile_prefix = before;
  });
}

}  // namespace lookback::select::device
