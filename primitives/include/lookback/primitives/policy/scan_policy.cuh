#pragma once
// Tuning of the single-pass scan, kept apart from the kernel. bench/scan_tuning_bench.cu times the
// alternatives side by side; the numbers below are its medians at 2^28 items.
#include <lookback/primitives/tile/tile_status.cuh>

namespace lookback::policy {

/// How a tile moves between global memory and the threads' registers.
enum class tile_io {
  warp_transpose,   // coalesced 4-byte accesses, transposed through shared memory
  blocked_vectors,  // each thread's own items as 16-byte vectors, no shared memory (aligned full tiles)
};

template <int Threads, int ItemsPerThread, tile_io Io = tile_io::warp_transpose, int SpinDelayNs = 0,
          tile::descriptor Descriptor = tile::descriptor::packed64>
struct scan_config {
  static constexpr int threads = Threads;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int tile_items = Threads * ItemsPerThread;
  static constexpr tile_io io = Io;
  static constexpr int spin_delay_ns = SpinDelayNs;
  static constexpr tile::descriptor descriptor = Descriptor;
};

/// 256 threads keep eight blocks resident per SM; 16 items of 4 bytes (8 of 8 bytes) per thread make a
/// 16 KiB tile, long enough that the look-back latency hides behind the other resident tiles' loads.
template <class T>
struct scan : scan_config<256, sizeof(T) <= 4 ? 16 : 8, tile_io::warp_transpose, 0, tile::default_descriptor<T>> {};

}  // namespace lookback::policy
