#pragma once
// Tuning of the single-pass scan, kept apart from the kernel. bench/scan_tuning_bench.cu times the
// alternatives side by side (exclusive sum, 2^28 items, H200, CUDA 13.0; medians):
//   uint32: 256x16 0.754 ms, 512x16 0.736 ms, 128x24 0.79 ms; CUB 0.700 ms, memcpy 0.507 ms.
//     Loading tile blockIdx.x while the tile id is on the way: 0.80 ms. A persistent grid fetching
//     its next id early: 1.10 to 1.25 ms (reserved, unstarted tiles stall the look-backs behind them).
//     Each thread loading its own items as 16-byte vectors instead of the transposition: 0.99 ms.
//     A 64 or 500 ns back-off between look-back polls: no change.
//   uint64: value/fence/flag descriptors 2.06 ms, one 16-byte word 1.44 ms (256x8); 128x16 1.28 ms,
//     256x12 1.33 ms; CUB 1.25 ms, memcpy 1.01 ms.
#include <lookback/primitives/tile/tile_status.cuh>

namespace lookback::policy {

/// Tile shape; 16-byte vector global accesses (warp-striped, for aligned arrays); the look-back's wait
/// before its first poll and back-off between polls; how descriptors publish.
template <int Threads, int ItemsPerThread, bool VectorAccess, int InitialDelayNs, int SpinDelayNs,
          tile::descriptor Descriptor>
struct scan_config {
  static constexpr bool vector_access = VectorAccess;
  static constexpr int initial_delay_ns = InitialDelayNs;
  static constexpr int threads = Threads;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int tile_items = Threads * ItemsPerThread;
  static constexpr int spin_delay_ns = SpinDelayNs;
  static constexpr tile::descriptor descriptor = Descriptor;
};

/// 4-byte values: 512 threads x 16 items (32 KiB tiles); 8-byte values: 128 x 16 (16 KiB tiles).
template <class T>
struct scan : scan_config<sizeof(T) <= 4 ? 512 : 128, 16, true, 0, 0, tile::default_descriptor<T>> {};

}  // namespace lookback::policy
