#pragma once
// Tuning of the convolution kernels, kept apart from the code (not measured yet: the first GPU run of
// bench/convolution_bench.cu sets these).
namespace lookback::policy {

/// 1D: threads per block and outputs per thread (a tile of Threads * OutputsPerThread outputs reads
/// that many inputs plus the mask's width less one); masks up to SmallTaps or LargeTaps taps travel
/// as kernel parameters, wider ones stay in global memory.
template <int Threads, int OutputsPerThread, int SmallTaps, int LargeTaps>
struct convolution1d_config {
  static constexpr int threads = Threads;
  static constexpr int outputs_per_thread = OutputsPerThread;
  static constexpr int tile_outputs = Threads * OutputsPerThread;
  static constexpr int small_taps = SmallTaps;
  static constexpr int large_taps = LargeTaps;
};

/// 2D: a block of BlockX x BlockY threads computes a BlockX x (BlockY * RowsPerThread) output tile.
template <int BlockX, int BlockY, int RowsPerThread, int SmallTaps, int LargeTaps>
struct convolution2d_config {
  static constexpr int block_x = BlockX;
  static constexpr int block_y = BlockY;
  static constexpr int rows_per_thread = RowsPerThread;
  static constexpr int tile_width = BlockX;
  static constexpr int tile_height = BlockY * RowsPerThread;
  static constexpr int small_taps = SmallTaps;
  static constexpr int large_taps = LargeTaps;
};

struct convolution1d : convolution1d_config<256, 8, 64, 2048> {};
struct convolution2d : convolution2d_config<32, 8, 4, 81, 2025> {};

/// 2D masks of a size known at compile time (device/blocked_convolution2d_kernel.cuh): a 64 x 64
/// output tile, each thread a column of 16 outputs.
struct convolution2d_blocked : convolution2d_config<64, 4, 16, 49, 49> {};

}  // namespace lookback::policy
