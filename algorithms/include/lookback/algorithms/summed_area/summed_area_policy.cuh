#pragma once
// Tuning of the summed-area table, kept apart from the code; bench/summed_area_bench.cu times it beside
// a device memcpy of the image. H100, 8192^2 float:
//  - A row pass (block scans) then a column pass with band totals and a second read: 0.519 ms, 2.83x
//    a memcpy. The column pass in one read and one write, a look-back chain per column: 0.389, 2.1x.
//  - One pass, tiles looking back along rows and down columns (two_way_lookback_kernel.cuh), in one
//    run with the memcpy at 0.185 ms (2048^2 / 4096^2 / 8192^2, memcpy 0.014 / 0.053 / 0.185 ms):
//    64 x 128 at four blocks an SM (64 registers) 0.025 / 0.070 / 0.227 (1.23x the memcpy); with
//    200 or 500 ns before the first poll the same; 64 x 128 at three blocks 0.233; 32 x 128 0.262;
//    32 x 256 0.241; 64 x 256 0.226 (two blocks); 128 x 128 0.234; 32 x 128 of four warps 0.250.
//    Reading 4, 8 or 16 predecessors a poll instead of one (more loads in flight on a long walk)
//    was slower at every size: 8192^2 0.296 / 0.330 / 0.425; the walks are short and the extra
//    polls contend in L2.
//  - ncu of the 64 x 128 kernel (H100, 8192^2): DRAM 71%, 50% occupancy (registers), of 14.9 cycles
//    between a warp's issues 5.4 at barriers and 3.9 waiting on global loads. The row, column and
//    corner look-backs then run side by side in different warps (the column chains carrying only the
//    tiles' own parts, published as soon as a tile has loaded, the corner the sum above and to the
//    left, published after the row look-back): 0.274 ms against 0.227; 64 x 256 of 16 warps 0.249,
//    128 x 128 0.259. Not kept.
//  - Two predecessors a read (tile/chained_lookback.cuh's window, which the sort's digit passes
//    gained from), H200 at 2048^2 / 4096^2 / 8192^2: 0.025 / 0.063 / 0.199 ms against 0.023 / 0.061
//    / 0.193 with one (memcpy 0.133 ms at 8192^2). Not kept.
//  - Each block prefetching into L2 the rows of the tile 66 / 132 / 264 ids ahead (thread/
//    l2_prefetch.cuh, one bulk prefetch a row, which took the 1D scan to 95% of a memcpy), H100 at
//    8192^2: 0.259 / 0.275 / 0.302 ms against 0.237 (4096^2 0.077 / 0.079 / 0.082 against 0.072). Not
//    kept: 64 prefetches by one thread before the block starts, and rows 32 KiB apart.
//  - Resident blocks that take tile after tile and load the next by cp.async into shared memory while
//    they resolve the current (H100, 8192^2, one run, memcpy 0.183 ms; a tile a block: 64 x 128 at
//    four blocks 0.222 with a 200 ns first wait, 0.221 with 500, at three blocks 0.232). With the
//    next tiles' ids taken a round ahead (a ring of two or three stages): 0.825 / 1.71 ms, every tile
//    waiting on predecessors that sat unpublished in another block's queue. With the next tile taken
//    mid-round, by the warps not looking back along rows once the current tile had published its row
//    totals: 64 x 128 at three / two blocks 0.273 / 0.295, 32 x 256 at three 0.272, 32 x 128 of four
//    warps 0.285, 128 x 128 at one 0.315. The look-backs, not the loads, bound a tile a block, and
//    fewer resident blocks hide less of them. Not kept.
#include <type_traits>

namespace lookback::policy {

/// A tile of Warps * RowsPerWarp rows by 32 * Segments columns; each thread holds RowsPerWarp rows of
/// Segments columns, 32 apart, so every load and store of a warp is 32 consecutive cells. The look-backs
/// read LookbackWindow predecessors at a time.
template <int Warps, int RowsPerWarp, int Segments, int MinBlocks, int InitialDelayNs, int LookbackWindow = 1>
struct summed_area_config {
  static constexpr int lookback_window = LookbackWindow;
  static constexpr int warps = Warps;
  static constexpr int threads = Warps * 32;
  static constexpr int rows_per_warp = RowsPerWarp;
  static constexpr int segments = Segments;
  static constexpr int tile_rows = Warps * RowsPerWarp;
  static constexpr int tile_columns = 32 * Segments;
  static constexpr int min_blocks = MinBlocks;
  static constexpr int initial_delay_ns = InitialDelayNs;
};

/// Accumulators of 8 bytes take half the rows, for the same registers.
template <class Acc>
struct summed_area
    : std::conditional_t<sizeof(Acc) <= 4, summed_area_config<8, 8, 4, 4, 0>, summed_area_config<8, 4, 4, 3, 0>> {};

}  // namespace lookback::policy
