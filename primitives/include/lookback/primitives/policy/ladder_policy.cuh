#pragma once
// Shapes of the teaching "ladder" kernels (ladder/reduce_ladder.cuh, ladder/scan_ladder.cuh). They are
// fixed, not tuned: every rung of a ladder runs with the same block size, so that the step from one
// rung to the next measures the technique the rung adds and nothing else.
//
// Measured (`lookback ladder`, H100 80GB HBM3, CUDA 13.0, medians of 9):
//   reduce float32 2^24: rung 1 0.085 ms, 2 0.102, 3 0.083, 4 0.050, 5 0.039, 6 0.040, 7 0.032,
//     8 0.031, 9 0.032, 10 0.032; CUB 0.031. int32 2^26: rung 1 0.309 ms ... 7 0.100; CUB 0.098.
//     On Hopper the strided rung 2 is slower than rung 1: its bank conflicts cost more than the
//     divergence it removes, unlike on Harris's G80.
//   scan int32 2^24: rung 1 0.172 ms, 2 0.155, 3 0.201, 4 0.109, 5 0.108, 6 8.95 (domino: 8192
//     tile hand-offs in series, about 1.1 us each), 7 0.070; CUB 0.067.
namespace lookback::policy {

struct ladder {
  /// Threads per block of every ladder kernel (Harris's table used 128; 256 is also the production
  /// reduction's block, so rungs 7 to 10 differ in their block-wide step alone).
  static constexpr int threads = 256;
  /// Items per thread in the coarsened scans (rungs 4 to 6): enough sequential work per thread to
  /// make the block-wide step over thread totals a small part of the tile, and a 2048-item tile.
  static constexpr int scan_items_per_thread = 8;
};

}  // namespace lookback::policy
