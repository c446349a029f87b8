#pragma once
// Tuning of the convolution kernels, kept apart from the code. Measured on an H100 (CUDA 13.0), 1D
// float, 2^28 samples, 9 taps, zero ghosts, against a device memcpy of the input (0.717 ms): 256
// threads of 8 outputs staging through a loop 0.847 ms (85%); the tile's own inputs loaded unrolled,
// all in flight before the staging stores: 256 x 8 0.745 ms (96%), 256 x 16 0.727 ms (99%). A
// register-blocked variant (each thread 4 to 8 consecutive outputs from one window read as 16-byte
// vectors, masks up to 16 taps) reached 0.716-0.725 ms, no gain worth a second kernel.
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

struct convolution1d : convolution1d_config<256, 16, 64, 2048> {};
struct convolution2d : convolution2d_config<32, 8, 4, 81, 2025> {};

/// 2D masks of a size known at compile time (device/blocked_convolution2d_kernel.cuh): a 64 x 64
/// output tile, each thread a column of 16 outputs.
struct convolution2d_blocked : convolution2d_config<64, 4, 16, 49, 49> {};

}  // namespace lookback::policy
