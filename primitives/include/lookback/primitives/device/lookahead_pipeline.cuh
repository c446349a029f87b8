#pragma once
// The pipeline the look-ahead scans share (device/scan_lookahead_kernel.cuh and
// device/deterministic_scan_lookahead_kernel.cuh): one persistent block an SM whose stages of shared
// memory each hold one tile. One thread takes tile ids and brings tiles in by bulk copies; reduce warps
// publish what a tile contributes to later tiles; a look-ahead warp finds the tile's prefix; scan warps
// write the results over the items and one of them copies the tile out. The deterministic reduction
// (device/deterministic_reduce_lookahead_kernel.cuh) keeps the loads and the reduce warps, which free
// each stage themselves. Each stage's five barriers mark
// the hand-overs: tile id known, loaded, reduced, prefix known, free again. The look-ahead starts on the
// id, while the tile is still on its way: a tile's prefix needs only the aggregates before it, and
// waiting for its own load put a DRAM latency and the look-ahead's polls one after the other.
#include <lookback/primitives/detail/dependent_launch.cuh>
#include <lookback/primitives/thread/bulk_copy.cuh>
#include <lookback/primitives/tile/running_lookahead.cuh>
#include <lookback/primitives/tile/tile_id.cuh>

#include <cstdint>

namespace lookback::device::lookahead {

/// Bytes of a tile of `valid` items that one bulk copy moves; the rest (under 16 bytes) move item by
/// item.
template <class T>
__device__ __forceinline__ unsigned bulk_bytes(int valid) {
  return static_cast<unsigned>(valid) * sizeof(T) / thread::bulk_copy_alignment * thread::bulk_copy_alignment;
}

/// A stage's barriers and its tile's id (past the last tile: the load role has stopped).
struct stage_sync {
  std::uint64_t id_known;
  std::uint64_t loaded;
  std::uint64_t reduced;
  std::uint64_t prefix_known;
  std::uint64_t free;
  std::int64_t tile;
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

/// Thread 0 sets up every stage's barriers; the caller synchronises the block after. Every reduce
/// thread arrives once a tile is reduced, and every scan thread (the reduction's reduce threads) once
/// its stage is free; the look-ahead arrives from one lane. `other_readers`: further arrivals a stage waits for before it is free (a
/// kernel's warps of other roles that read a stage's control).
template <int Stages, class Control>
__device__ __forceinline__ void init_barriers(Control (&ctl)[Stages], unsigned role_threads,
                                              unsigned other_readers = 0) {
  if (threadIdx.x != 0) return;
  for (int s = 0; s < Stages; ++s) {
    thread::barrier_init(&ctl[s].sync.id_known, 1);
    thread::barrier_init(&ctl[s].sync.loaded, 1);
    thread::barrier_init(&ctl[s].sync.reduced, role_threads);
    thread::barrier_init(&ctl[s].sync.prefix_known, 1);
    thread::barrier_init(&ctl[s].sync.free, role_threads + other_readers);
  }
  thread::fence_barrier_init();
}

/// The start of every pipelined kernel: the stages' barriers set up (init_barriers), the block
/// synchronised so that no thread uses one before it is, then every thread waiting for the kernel that
/// clears the tile counter and descriptors, which these kernels are launched dependent on
/// (detail/clear_then_launch.cuh): the barriers' set-up overlaps the clearing.
template <int Stages, class Control>
__device__ __forceinline__ void start_after_clearing(Control (&ctl)[Stages], unsigned role_threads,
                                                     unsigned other_readers = 0) {
  init_barriers(ctl, role_threads, other_readers);
  __syncthreads();
  lookback::detail::wait_for_prior_grid();
}

/// The load role, one thread: for each stage in turn, once it is free, the next tile id and its bulk
/// copy (and, given `d_beside`, the same tile of a second array into `stage_beside`: compaction's
/// flags); past the last tile, the id that stops every role. Stage s's items start StageStride items
/// into `stage_items` (a kernel may leave room past a tile).
template <int Stages, int TileItems, int StageStride = TileItems, class Control, class T, class U = unsigned char>
__device__ __forceinline__ void load_tiles(Control (&ctl)[Stages], T* stage_items, const T* d_in, std::int64_t n,
                                           unsigned* d_tile_counter, U* stage_beside = nullptr,
                                           const U* d_beside = nullptr) {
  const std::int64_t num_tiles = (n + TileItems - 1) / TileItems;
  for (int it = 0;; ++it) {
    const int s = it % Stages;
    stage_sync& c = ctl[s].sync;
    if (it >= Stages) thread::barrier_wait(&c.free, (it / Stages - 1) & 1);
    const std::int64_t tile = atomicAdd(d_tile_counter, 1u);
    c.tile = tile;
    thread::barrier_arrive(&c.id_known);
    if (tile >= num_tiles) {
      thread::barrier_arrive(&c.loaded);
      return;
    }
    const int valid = tile::items_in_tile(tile, TileItems, n);
    const unsigned bulk = bulk_bytes<T>(valid);
    T* const stage = stage_items + s * StageStride;
    const T* const in = d_in + tile * TileItems;
    for (int i = static_cast<int>(bulk / sizeof(T)); i < valid; ++i) stage[i] = in[i];
    U* const beside = stage_beside + s * TileItems;
    const U* const in_beside = d_beside != nullptr ? d_beside + tile * TileItems : nullptr;
    const unsigned bulk_beside = d_beside != nullptr ? bulk_bytes<U>(valid) : 0u;
    if (d_beside != nullptr)
      for (int i = static_cast<int>(bulk_beside / sizeof(U)); i < valid; ++i) beside[i] = in_beside[i];
    thread::barrier_arrive_expect_bytes(&c.loaded, bulk + bulk_beside);
    if (bulk > 0) thread::bulk_load(stage, in, bulk, &c.loaded);
    if (bulk_beside > 0) thread::bulk_load(beside, in_beside, bulk_beside, &c.loaded);
  }
}

/// Called by every scan thread once the stage holds the tile's results (each thread's own writes to it
/// done): thread `r` 0 copies the tile out, keeping one copy in flight, and every thread frees the
/// stage before this one, whose copy has then read it. `unreleased` (start at -1) tracks that stage.
template <int Stages, int RoleThreads, class Control, class T>
__device__ __forceinline__ void store_and_release(Control (&ctl)[Stages], int s, int& unreleased, const T* stage,
                                                  T* out, int valid, int r) {
  thread::fence_shared_for_bulk_copies();
  thread::named_barrier(2, RoleThreads);
  if (r == 0) {
    const unsigned bulk = bulk_bytes<T>(valid);
    if (bulk > 0) thread::bulk_store(out, stage, bulk);
    thread::bulk_commit();
    for (int i = static_cast<int>(bulk / sizeof(T)); i < valid; ++i) out[i] = stage[i];
    thread::bulk_wait_read<1>();
  }
  // Every scan thread arrives, each releasing its own reads of the stage and its control.
  if (unreleased >= 0) thread::barrier_arrive(&ctl[unreleased].sync.free);
  unreleased = s;
}

/// By every thread of the reduce role: role(s, tile) for each tile in turn, once its stage s is loaded;
/// returns at the id past the last tile.
template <int Stages, class Control, class Role>
__device__ __forceinline__ void for_each_loaded_tile(Control (&ctl)[Stages], std::int64_t num_tiles, Role role) {
  for (int it = 0;; ++it) {
    stage_sync& c = ctl[it % Stages].sync;
    thread::barrier_wait(&c.loaded, (it / Stages) & 1);
    const std::int64_t tile = c.tile;
    if (tile >= num_tiles) return;
    role(it % Stages, tile);
  }
}

/// By every thread of the scan role: role(s, tile) for each tile in turn, once its stage s is loaded,
/// reduced and its prefix known; returns at the id past the last tile.
template <int Stages, class Control, class Role>
__device__ __forceinline__ void for_each_tile_to_scan(Control (&ctl)[Stages], std::int64_t num_tiles, Role role) {
  for (int it = 0;; ++it) {
    stage_sync& c = ctl[it % Stages].sync;
    const unsigned parity = (it / Stages) & 1;
    thread::barrier_wait(&c.loaded, parity);
    const std::int64_t tile = c.tile;
    if (tile >= num_tiles) return;
    thread::barrier_wait(&c.reduced, parity);
    thread::barrier_wait(&c.prefix_known, parity);
    role(it % Stages, tile);
  }
}

/// The tile id of stage `s` in round `it / Stages`, read by lane 0 alone once known (the tile may still
/// be loading) and passed to the warp, so that lane 0's arrival releases every read of it (the
/// look-ahead warp).
template <int Stages, class Control>
__device__ __forceinline__ std::int64_t warp_wait_tile(Control (&ctl)[Stages], int it) {
  stage_sync& c = ctl[it % Stages].sync;
  thread::barrier_wait(&c.id_known, (it / Stages) & 1);
  return __shfl_sync(0xffffffffu, (threadIdx.x % 32) == 0 ? c.tile : 0, 0);
}

/// The look-ahead role, one warp: for each tile in turn, once loaded, its exclusive prefix: `running`
/// (the aggregates before the block's previous tile) extended by the aggregates published between
/// (tile/running_lookahead.cuh), handed to the stage's `prefix`; returns at the id past the last tile.
template <int Chunks, int RetryDelayNs, int Stages, class Control, class T, class Op, class StatusArray>
__device__ __forceinline__ void lookahead_prefixes(Control (&ctl)[Stages], const StatusArray& tiles,
                                                   std::int64_t num_tiles, T running, Op op, const T& identity) {
  std::int64_t next = 0;
  for (int it = 0;; ++it) {
    const std::int64_t tile = warp_wait_tile(ctl, it);
    if (tile >= num_tiles) return;
    tile::fold_aggregates<Chunks, RetryDelayNs>(tiles, next, tile, running, op, identity);
    if ((threadIdx.x % 32) == 0) {
      ctl[it % Stages].prefix = running;
      thread::barrier_arrive(&ctl[it % Stages].sync.prefix_known);
    }
  }
}

#endif

}  // namespace lookback::device::lookahead
