#pragma once
// Tuning of the single-pass scan, kept apart from the kernel.
namespace lookback::policy {

/// 256 threads keep eight blocks resident per SM; 16 items of 4 bytes (8 of 8 bytes) per thread make
/// a 16 KiB tile, long enough that the look-back latency hides behind the other resident tiles' loads.
template <class T>
struct scan {
  static constexpr int threads = 256;
  static constexpr int items_per_thread = sizeof(T) <= 4 ? 16 : 8;
  static constexpr int tile_items = threads * items_per_thread;
};

}  // namespace lookback::policy
