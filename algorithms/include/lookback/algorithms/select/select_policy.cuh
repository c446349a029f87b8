#pragma once
// Tuning of the stream compaction kernel, kept apart from the code; bench/select_bench.cu times it
// beside cub::DeviceSelect.
#include <lookback/primitives/tile/tile_status.cuh>

#include <cstdint>

namespace lookback::policy {

/// Tile shape; 16-byte vector loads (warp-striped, for aligned arrays); the look-back's wait before
/// its first poll.
template <int Threads, int ItemsPerThread, bool VectorAccess, int InitialDelayNs>
struct select_config {
  static constexpr int threads = Threads;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int tile_items = Threads * ItemsPerThread;
  static constexpr bool vector_access = VectorAccess;
  static constexpr int initial_delay_ns = InitialDelayNs;
};

/// Tiles of 16 KiB of values at most: the tile's values, staged in shared memory for the compacted
/// store, share their space with the flags' staging.
template <class T>
struct select : select_config<sizeof(T) <= 4 ? 256 : 128, sizeof(T) <= 8 ? 16 : 8, true, 1100> {};

}  // namespace lookback::policy
