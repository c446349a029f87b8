#pragma once
// Tuning of the single-pass scan, kept apart from the kernel. bench/scan_tuning_bench.cu times the
// alternatives side by side (exclusive sum, 2^28 items, H200, CUDA 13.0; medians of 5):
//   uint32 (CUB 0.698 ms, memcpy 0.513 ms): 256x16 0.754 ms, 512x16 0.748, 128x24 0.79;
//     16-byte warp-striped vector accesses 512x16 0.734; waiting before the first look-back poll
//     (a predecessor's descriptor takes about an L2 write latency to appear; polling sooner only
//     contends for its L2 line) 700 ns 0.693, 1100 ns 0.670; 128x24 with CUB's waits 0.719.
//     Measured slower and dropped: loading tile blockIdx.x while the tile id is on the way (0.80), a
//     persistent grid fetching its next id early (1.10 to 1.25: reserved, unstarted tiles stall the
//     look-backs behind them), each thread loading its own items as vectors without the
//     transposition (0.99), a 64 to 500 ns back-off between polls alone (no change).
//   H100, uint32, one run (CUB 0.882, memcpy 0.717, the 512x16 default 0.868): ncu of the default
//     showed 60% of warp stalls at the barrier behind the look-back warp, 40 registers and shared
//     memory for three blocks an SM. Registers capped for more blocks (and the largest shared-memory
//     carveout): 512x16 four blocks 0.847 (32 registers, no spills), with a 700 ns first wait
//     0.869; 256x16 eight 0.856, six 0.902; 384x16 five 0.859; 256x32 four 0.853. uint64 128x16
//     eight blocks 1.60 against 1.56.
//   uint64 (CUB 1.248 ms, memcpy 1.014 ms): value/fence/flag descriptors 2.11 ms, one 16-byte word
//     1.30 (128x16); 256x8 1.44; vector accesses 1.31; 700 ns first wait 1.25.
//   H100, each block prefetching into L2 the input of the tile `distance` ids ahead (thread/
//   l2_prefetch.cuh), so that DRAM reads run on while blocks look back; uint32 2^28 without 0.847-0.855
//   ms, memcpy 0.722, CUB 0.884-0.888:
//     512x16 four blocks, distance 32 / 66 / 100 / 132 / 200 / 264 / 528 / 1056: 0.785-0.795 /
//       0.777-0.784 / 0.782 / 0.784-0.789 / 0.811-0.819 / 0.871 / 1.13 / 1.14 (too far ahead, the lines
//       leave L2 before their tile reads them, and were read for nothing); at 2^24 0.067-0.071 against
//       0.068-0.069.
//     256x16 eight blocks, 132 / 200 / 264 / 400: 0.772-0.779 / 0.775 / 0.763-0.772 / 0.782-0.791;
//       2^24 0.065-0.069; 2^20 0.013-0.016 against 512x16's 0.012-0.014 (all tiles are resident there).
//     uint64 128x16 (without 1.56 ms, memcpy 1.43, CUB 1.59), 132 / 200 / 264 / 330: 1.47-1.48 each;
//       2^24 0.106-0.110 against 0.111-0.114; 2^20 0.020 against 0.018. 128x16 eight blocks 1.48,
//       twelve 1.91; 256x8 eight 1.56.
//     In the main table of the same run: uint32 0.761 ms (95% of memcpy, 1.17x CUB), float32 0.761,
//       uint64 1.47 (97%).
//     Issued after the block's barrier, the prefetch cost registers (the deterministic scan spilled 64
//     bytes and took 1.49 ms); issued by the thread that takes the tile id, before it, nothing.
//   H100, the look-back's lanes each reading 2 or 4 consecutive predecessors a poll (64 or 128 tiles a
//   poll instead of 32, to shorten the walk of a wave's last tiles back to an inclusive prefix), two
//   runs, against 1 (large 256x16: 2^24 0.064-0.068 ms, 2^28 0.761-0.764; CUB 2^24 0.070-0.071): 2
//   0.069 / 0.835-0.839, 4 0.083-0.084 / 1.03-1.04 (16 and 40 bytes spilled under the 32-register
//   cap); small 512x16 at 2^24 2: 0.070-0.071, 4: 0.081-0.082; uint64 large (2^24 0.108, 2^28
//   1.46-1.47) 2: 0.109-0.111 / 1.48, 4: 0.119-0.122 / 1.64. Not kept: the wider polls cost more than
//   the walk they shorten.
//   H100, the descriptors zeroed by a kernel instead of a memset, the scan launched dependent on it
//   (detail/dependent_launch.cuh) so that its blocks wait resident, two runs each, against the memset:
//   uint32 2^20 0.0141-0.0164 ms against 0.0121-0.0122, 2^24 0.063-0.069 against 0.063-0.065, 2^28
//   0.759-0.761 against 0.760-0.763; float32 2^20 0.0151-0.0157 against 0.0113-0.0114; uint64 2^20
//   0.0184-0.0188 against 0.0163-0.0167. Compaction the same (select_if 50% kept, 2^20: 0.0159-0.0170
//   against 0.0127-0.0133). Not kept: the extra kernel and the wait cost more than the launch gap.
//   H100, 8-byte values up to small_max_items, one run (CUB 2^20 0.0168 ms, memcpy 0.0087; the small
//   128x16 0.0167-0.0181, 2^22 0.0382): 16-byte vector accesses 128x16 0.0172 / 0.0388; 256x8 0.0168 /
//   0.0389; larger tiles slower: 256x16 0.0181 / 0.0411, 512x8 four blocks 0.0199 / 0.0435, with
//   prefetching 100 ahead 0.0186 / 0.0474; 128x16 eight blocks prefetching 100 ahead 0.0180 / 0.0416;
//   the large policy at 2^20 0.0162, within the spread of two rows of the small policy's own shape
//   (0.0167 and 0.0181). Not kept: 8-byte scans at 2^20 stay level with CUB.
//   The pipelined scan (device/scan_lookahead_kernel.cuh; scan_lookahead_config: warps a role x items
//   a thread, stages, look-ahead chunks), one run each at 849dfc4, ms (CUB and memcpy from the main
//   table of the same run):
//     H100, uint32 2^28 (look-back large 0.764, CUB 0.884, memcpy 0.719): 4x63 6 stages 0.732, 4x79 5
//       stages 0.737; earlier runs: 4x63 4 stages 0.799, 4x31 12 stages 0.741, 8x31 6 stages 0.728, 4x63
//       2 chunks 0.728, a 200 ns wait after an empty poll 0.729. 2^24 (large 0.0653, CUB 0.0727): 4x63
//       0.0613. 2^16 / 2^18 / 2^20 / 2^22 against the small look-back policy: 0.0119 / 0.0124 / 0.0141 /
//       0.0241 against 0.0125 / 0.0127 / 0.0136 / 0.0241.
//     H100, uint64 2^28 (large 1.48, CUB 1.594, memcpy 1.433): 4x31 6 stages 1.44, 4x39 5 stages 1.46,
//       2x63 1.44, 4x15 12 stages 1.49; 2^24 (large 0.109): 4x31 0.105; 2^16 / 2^18 / 2^20 / 2^22 0.011 /
//       0.013 / 0.019 / 0.039 against the small policy's 0.012 / 0.012 / 0.020 / 0.041.
//     H200, uint32 2^28 (large 0.601, CUB 0.690, memcpy 0.507): 4x63 6 stages 0.527; earlier runs 4x63 4
//       stages 0.663, 4x55 7 stages 0.545, 4x47 8 stages 0.558, 4x39 10 stages 0.597, 4x31 12 stages
//       0.619, 8x31 6 stages 0.533. 2^24 (large 0.0526): 0.0470. 2^16 / 2^18 / 2^20 / 2^22: 0.0095 /
//       0.0097 / 0.0110 / 0.0189 against the small policy's 0.0097 / 0.0099 / 0.0111 / 0.0199.
//     H200, uint64 2^28 (large 1.152, CUB 1.230, memcpy 1.007): 4x31 6 stages 1.036; earlier 4x23 8 stages
//       1.12, 4x27 7 stages 1.08, 2x63 1.05, 4x15 12 stages 1.30. 2^24 (large 0.0873): 0.0790.
//     Fewer, larger stages win: what a block has in flight is what keeps DRAM busy; six stages of about
//     32 KiB are what an SM's shared memory holds. Against the look-back, the pipelined scan is level
//     up to 2^22 and faster beyond, so it took over from 2^18 items (since a3cbd55 the small arrays'
//     two kernels take everything up to 4 MiB).
//     H200, uint64 at 2^20 / 2^21 / 2^22, one run (CUB 2^20 0.0153 ms): 4x31 6 stages 0.0146 / 0.0180
//       / 0.0304 (two rounds of the grid's tiles at 2^20), 4x47 4 stages 0.0117 / 0.0174 / 0.0317, 4x63 3
//       stages 0.0120 / 0.0180 / 0.0325, 8x31 3 stages 0.0122 / 0.0171 / 0.0323: 4x47 up to 2^21
//       (lookahead_small). H100, one run: 4x31 0.016 / 0.020 / 0.035, 4x47 0.013 / 0.019 / 0.037;
//       in the main table at 2^20 0.0128 ms against CUB's 0.0172 (1.35x; H200 1.36x).
//     H100, the look-ahead reading 8 x 32 descriptors a poll instead of 4, one run, 2^20 / 2^24 / 2^28:
//       uint32 4x63 6 stages 0.0115 / 0.0619 / 0.746 against 0.0142 / 0.0614 / 0.730 (4 x 32 measured
//       0.0115 and 0.0127 at 2^20 in the next two runs); uint64 4x31 0.0172 / 0.103 / 1.438 against
//       0.0187 / 0.104 / 1.437. Not kept. The look-ahead starting on the tile id rather than the loaded
//       tile (lookahead_pipeline.cuh) measured level: uint32 2^24 / 2^28 0.057-0.059 / 0.725-0.731.
//   Every row above was timed with the host's launches in it. From here on the stream is held while a
//   call is submitted (typed::stream_hold; bench/results/timing-held-stream.md), so a row is the GPU's
//   time: at 2^20 that took about 3 us off this scan's row and 6 us off CUB's.
//     H100, one run at 93117f3+: the counter and descriptors cleared by a kernel that the scan launches
//       dependent on (detail/clear_then_launch.cuh), against a memset and a plain launch, uint32 4x63x6 at
//       2^16 / 2^18 / 2^20 / 2^22 / 2^24 / 2^28: 0.0069 / 0.0074 / 0.0082 / 0.0143 / 0.0516 / 0.7191 ms
//       against 0.0072 / 0.0077 / 0.0086 / 0.0157 / 0.0530 / 0.7206; uint64 4x47x4 at 2^20 / 2^21: 0.0100 /
//       0.0135 against 0.0106 / 0.0149. Kept, for every look-back kernel. (The zeroing kernel measured
//       slower above was timed with the host's launches, where a launch with attributes costs the host
//       more than a memset.)
//     H100, uint32 at 2^20, every shape of the tuning table, one run at a03afdd (CUB 0.0099 ms, memcpy
//       0.0046): pipelined 4x63 6 stages 0.0080 (the policy), 8x31 6 stages 2 chunks 0.0083, 4x63 8 chunks
//       0.0084, 4x79 5 stages 0.0084, 4x47 8 stages 0.0085, 4x55 7 stages 0.0086, 4x31 12 stages 0.0091;
//       look-back small 512x16 0.0086, 512x16 four blocks without prefetching 0.0086, large and 256x16
//       prefetching 0.0091. No shape reaches 1.3x CUB (0.0076).
//     H100, one call at fb4e2ca, the public scan (bench/commit_ab.cu, held timing, five rounds' medians of
//       15): each pipelined block asking L2, before it waits for the clearing, for the tiles of the grid's
//       first round (tile blockIdx.x, and + gridDim.x for a second round), so that their DRAM reads
//       overlap the clearing and the first ids' atomics. uint32 2^18 / 2^20 / 2^22 / 2^24 / 2^28: none
//       0.0074-0.0075 / 0.0083-0.0084 / 0.0141-0.0148 / 0.0508-0.0516 / 0.7173-0.7180; one round
//       0.0074-0.0075 / 0.0083-0.0084 / 0.0145-0.0149 / 0.0506-0.0509 / 0.7160-0.7169; two rounds
//       0.0074-0.0076 / 0.0084-0.0085 / 0.0147-0.0150 / 0.0509-0.0521 / 0.7164-0.7176. uint64 2^20 / 2^22 /
//       2^24: none 0.0102 / 0.0295-0.0299 / 0.0955-0.0958, one round 0.0101-0.0104 / 0.0286-0.0295 /
//       0.0949-0.0951. At 2^20 the first loads are not what the time waits on (2^18, a quarter of the
//       bytes, takes 0.0074): not kept.
//   H100, one call at 4e37e57, held timing, medians of 25, each row beside CUB (ms): the whole scan at
//     2^18 to 2^21 uint32 as one cooperative kernel (tiles resident in registers, one grid barrier
//     between publishing aggregates and writing results) 2^18 / 2^19 / 2^20 / 2^21: 0.0057-0.0058 /
//     0.0071 / 0.0087-0.0098 / 0.0134-0.0137 against this scan's 0.0075 / 0.0072-0.0074 / 0.0081-0.0083 /
//     0.0097-0.0098 (CUB 0.0077 / 0.0084-0.0087 / 0.0097-0.0099 / 0.0119-0.0120). A kernel that only
//     copies the same tiles takes 0.0044 ms at 2^20 (a memcpy 0.0044, an empty kernel 0.0032, the
//     clearing kernel and an empty dependent one 0.0039), with the barrier between its loads and stores
//     0.0073-0.0076: every store waiting on every load costs what the look-back scan loses at 2^20.
//   Reduce-then-scan (device/reduce_then_scan_kernels.cuh): a kernel publishes each tile's aggregate, and
//     a second, launched dependent on it, loads and scans its tile while the first runs, then waits and
//     folds the aggregates before it; nothing to clear, no tile waiting on another. One call, two rounds,
//     ms, threads x items:
//     uint32 at 2^16 / 2^18 / 2^20 / 2^21 / 2^22: 256x16 0.0054-0.0055 / 0.0059 / 0.0071 / 0.0098-0.0099
//       / 0.0161; 512x16 0.0059 / 0.0061 / 0.0074 / 0.0097-0.0098 / 0.0158-0.0160; 1024x8 0.0061 / 0.0061
//       / 0.0074 / 0.0096-0.0098 / 0.0164; 256x8 0.0052 / 0.0059 / 0.0083 / 0.0116 / 0.0212; 512x16
//       loading after the wait 0.0068 / 0.0070 / 0.0081 / 0.0110-0.0111 / 0.0155-0.0156. This scan
//       0.0075-0.0081 / 0.0075 / 0.0082 / 0.0100-0.0101 / 0.0140-0.0142, CUB 0.0070 / 0.0079 /
//       0.0098-0.0100 / 0.0121-0.0123 / 0.0162-0.0165, memcpy 0.0035 / 0.0037 / 0.0046 / 0.0058 / 0.0098.
//     uint64 at 2^16 / 2^18 / 2^20 / 2^21: 256x8 0.0057-0.0059 / 0.0066 / 0.0112 / 0.0178-0.0181; 128x16
//       0.0059 / 0.0065-0.0066 / 0.0111-0.0112 / 0.0178-0.0181; 512x8 0.0066 / 0.0068 / 0.0116 / 0.0179;
//       this scan 0.0072-0.0075 / 0.0077 / 0.0101 / 0.0140, CUB 0.0073 / 0.0084 / 0.0114 / 0.0161-0.0162.
//     Up to 4 MiB (uint32 2^20, 1.4x CUB) the two kernels win; from 8 MiB (uint32 2^21 level, uint64 2^20
//     10% slower) the look-back does, whose arrays no longer all sit in L2 between two reads.
//     Each tile's prefix then folded by the whole block (each thread one aggregate while there are no
//     more tiles than threads) instead of one warp (a lane's run of aggregates loaded one after
//     another: 16 at 2^20 in 256 x 8 tiles), one run at a3cbd55: uint32 at 2^16 / 2^18 / 2^20 / 2^21 /
//     2^22 256x8 0.0052 / 0.0054 / 0.0068 / - / -, 256x16 0.0056 / 0.0056 / 0.0069 / 0.0094 / 0.0154,
//     512x16 0.0060 / 0.0061 / 0.0073 / 0.0091 / 0.0145, 1024x8 0.0062 / 0.0062 / 0.0073 / 0.0097 /
//     0.0162; uint64 at 2^16 / 2^18 / 2^19 / 2^20 / 2^21 256x8 0.0059 / 0.0063 / 0.0075 / 0.0110 /
//     0.0168, 128x16 0.0059 / 0.0064 / 0.0080 / 0.0106 / 0.0167. Main table of the same run (256x16):
//     uint32 2^20 0.0068 ms, 1.44x CUB (float32 1.45x). 256 x 8 taken for every width up to 8 bytes.
//     At 8 MiB (uint64 2^20, uint32 2^21), one call at fe22cfc+, threads x items (x blocks an SM the
//     registers were capped for): uint64 2^19 / 2^20 256x8 0.0077 / 0.0111, 256x8x4 0.0076 / 0.0099,
//     256x8x6 0.0078 / 0.0111, 128x16 0.0081 / 0.0107, 128x16x8 0.0078 / 0.0105, 512x8x2 0.0078 /
//     0.0106, 256x4 0.0081 / 0.0113, 512x4 0.0082 / 0.0114, 1024x4 0.0080 / 0.0109; the pipeline 4x47x4
//     0.0102, CUB 0.0113, memcpy 0.0058. uint32 2^20 / 2^21: 256x16 0.0070 / 0.0094, 256x16x4 0.0070 /
//     0.0091, 512x16 0.0074 / 0.0092, 512x16x2 0.0074 / 0.0092, 256x8x8 0.0070 / 0.0098, 1024x8 0.0074 /
//     0.0097. ncu (cold caches, base clocks) of 256x8 at uint64 2^20: the first kernel 32 registers, 6.3
//     us, the second 40 registers (six blocks an SM), 10.0 us, both about 40% achieved occupancy. No
//     shape reaches 1.3x CUB at 8 MiB (0.0087 ms, with a kernel and a dependent one's fixed 0.0039): the
//     pipeline stays there.
#include <lookback/primitives/tile/tile_status.cuh>

#include <cstdint>
#include <type_traits>

namespace lookback::policy {

/// Tile shape; 16-byte vector global accesses (warp-striped, for aligned arrays); the look-back's wait
/// before its first poll; how descriptors publish; the blocks an SM must hold (0: the compiler's
/// registers), for which the kernel also asks for the largest shared-memory carveout; how many tiles
/// ahead each block prefetches input into L2 (0: none; thread/l2_prefetch.cuh).
template <int Threads, int ItemsPerThread, bool VectorAccess, int InitialDelayNs, tile::descriptor Descriptor,
          int MinBlocks = 0, int PrefetchTiles = 0>
struct scan_config {
  static constexpr int prefetch_tiles = PrefetchTiles;
  static constexpr int min_blocks = MinBlocks;
  static constexpr bool vector_access = VectorAccess;
  static constexpr int initial_delay_ns = InitialDelayNs;
  static constexpr int threads = Threads;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int tile_items = Threads * ItemsPerThread;
  static constexpr tile::descriptor descriptor = Descriptor;
};

/// The pipelined scan for Hopper and later (device/scan_lookahead_kernel.cuh): `Warps` reduce warps and
/// as many scan warps, each thread `ItemsPerThread` consecutive items of a tile (odd, so that a warp's
/// reads of shared memory fall on distinct banks), `Stages` tiles in shared memory at once, the
/// look-ahead reading `LookaheadChunks` x 32 descriptors a poll and waiting `RetryDelayNs` after a poll
/// that found nothing new.
template <int Warps, int ItemsPerThread, int Stages, int LookaheadChunks, int RetryDelayNs = 0>
struct scan_lookahead_config {
  static constexpr int warps = Warps;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int stages = Stages;
  static constexpr int lookahead_chunks = LookaheadChunks;
  static constexpr int retry_delay_ns = RetryDelayNs;
  static constexpr int tile_items = Warps * 32 * ItemsPerThread;
  static constexpr int threads = (2 * Warps + 2) * 32;  // reduce, scan, load, look-ahead
};

/// The small arrays' scan (device/reduce_then_scan_kernels.cuh): threads per block, consecutive items a
/// thread, the blocks of each kernel an SM must hold (0: the compiler's registers).
template <int Threads, int ItemsPerThread, int MinBlocks = 0>
struct reduce_then_scan_config {
  static constexpr int min_blocks = MinBlocks;
  static constexpr int threads = Threads;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int tile_items = Threads * ItemsPerThread;
};

/// Up to small_max_items (where most tiles are resident at once, and fewer, larger tiles shorten the
/// look-back's chain): 4-byte values 512 threads x 16 items (32 KiB tiles) with vector accesses,
/// registers capped for four blocks an SM, prefetching 100 tiles ahead; 8-byte values 128 x 16 (16 KiB
/// tiles). Past it: 4-byte values 256 x 16 at eight blocks an SM, 8-byte values 128 x 16, both
/// prefetching 200 tiles ahead. Wider values 128 x 4 at every size, to stay within a block's 48 KiB
/// of static shared memory (not measured). All wait 1.1 us before the first look-back poll.
template <class T>
struct scan {
  using small = scan_config<sizeof(T) <= 4 ? 512 : 128, sizeof(T) <= 8 ? 16 : 4, sizeof(T) <= 4, 1100,
                            tile::default_descriptor<T>, sizeof(T) <= 4 ? 4 : 0, sizeof(T) <= 4 ? 100 : 0>;
  using large = std::conditional_t<
      sizeof(T) <= 4, scan_config<256, 16, true, 1100, tile::default_descriptor<T>, 8, 200>,
      std::conditional_t<sizeof(T) <= 8, scan_config<128, 16, false, 1100, tile::default_descriptor<T>, 0, 200>, small>>;
  static constexpr std::int64_t small_max_items = std::int64_t{1} << 22;
  /// The pipelined scan, where it applies (Hopper and later, aligned arrays) past the small arrays: tiles
  /// of about 32 KiB in six stages; 8-byte values up to lookahead_small_max_items in tiles of 47 KiB in
  /// four stages, so that 2^20 items are one round of the grid's tiles rather than two.
  using lookahead = std::conditional_t<sizeof(T) <= 4, scan_lookahead_config<4, 63, 6, 4>,
                                       scan_lookahead_config<4, 31, 6, 4>>;
  using lookahead_small = std::conditional_t<sizeof(T) <= 4, lookahead, scan_lookahead_config<4, 47, 4, 4>>;
  static constexpr std::int64_t lookahead_small_max_items = std::int64_t{1} << 21;
  /// Up to reduce_then_scan_max_bytes of items, every scan takes two kernels that need no clearing:
  /// 256 threads of 8 items for items of 4 and 8 bytes, of 16 for 1 and 2 bytes (whole 16-byte
  /// vectors, not measured), wider ones 128 x 4 as the look-back's.
  using reduce_then_scan = reduce_then_scan_config<sizeof(T) <= 8 ? 256 : 128,
                                                   sizeof(T) <= 2 ? 16 : (sizeof(T) <= 8 ? 8 : 4)>;
  static constexpr std::int64_t reduce_then_scan_max_bytes = std::int64_t{4} << 20;
};

/// The deterministic scan's association, part of its documented promise and never a tuning choice:
/// granules of 2176 items, each 4 warps of 32 runs of 17 consecutive items, and windows of 32 granules
/// (cpu/deterministic_scan.hpp spells the association out). Its tiles hold whole granules and never
/// straddle a window. The run is odd so that a warp reading its 32 runs of a tile in shared memory
/// touches 32 distinct banks (the pipelined kernel reads them in place); runs of 16 measured 27% slower
/// there, through a padded transposition (below).
namespace deterministic_granule {
inline constexpr int run_items = 17;
inline constexpr int warps = 4;
inline constexpr int items = run_items * 32 * warps;  // 2176
inline constexpr int window_granules = 32;
inline constexpr std::int64_t window_items = std::int64_t{items} * window_granules;  // 69632
}  // namespace deterministic_granule

/// A deterministic scan's tile: `Granules` granules (128 threads each), 16-byte vector accesses for
/// aligned arrays, the look-back's first wait, the blocks an SM must hold (which caps the registers),
/// how many tiles ahead each block prefetches input into L2. The result is the same bits for every
/// choice.
template <int Granules, int InitialDelayNs, int MinBlocksPerSm = 1, int PrefetchTiles = 0>
struct deterministic_scan_config {
  static constexpr int prefetch_tiles = PrefetchTiles;
  static constexpr int window_granules = deterministic_granule::window_granules;
  static_assert(window_granules % Granules == 0, "a tile may not straddle a window");
  static constexpr int granules_per_tile = Granules;
  static constexpr int threads = Granules * deterministic_granule::warps * 32;
  static constexpr int items_per_thread = deterministic_granule::run_items;
  static constexpr int tile_items = threads * items_per_thread;
  static constexpr bool vector_access = true;
  static constexpr int initial_delay_ns = InitialDelayNs;
  static constexpr int min_blocks_per_sm = MinBlocksPerSm;
};

/// Measured on the H100 at 2^28 (bench/scan_tuning_bench.cu; the default scan float32 0.83-0.84 ms,
/// uint64 1.56 ms), with the two-level windows and runs of 16:
///   float32, 4 granules (512 threads): the compiler's 45 registers (two blocks an SM) 1.07 ms; capped
///     for three blocks (40, a few bytes spilled) 0.99; for four (32, 60 bytes spilled) 1.03-1.05;
///     first wait 500 / 1100 / 2000 ns within 2%; 2 granules 1.04-1.08; windows of 8 or 16 granules
///     instead of 32 (an experiment, not the promise) 1.01-1.02. ncu at three blocks: 65% of DRAM
///     throughput against the default scan's 76%, occupancy the difference. With the look-back
///     warps' items set aside in shared memory, four blocks fit 32 registers unspilled: 0.93.
///   float64: 1 granule 1.89-1.93 ms, 2 granules 1.75-1.84, 2 capped for five blocks 1.91.
///   Prefetching into L2 the tile 66 / 132 / 200 ids ahead: float32 0.813 / 0.811 / 0.829 ms against
///     0.928 (the default scan 0.761 in the same run: +7%); float64 (2 granules) 132 / 264: 1.61 / 1.69
///     against 1.72.
///   The same association on the look-ahead pipeline of the default scan (a kernel of the scan's roles:
///   tiles of whole granules by bulk copies, reduce warps publishing granule aggregates, one warp
///   folding each window's aggregates in the promised order, scan warps transposing each run through
///   shared memory), 2^28 at f7223a3 on the H100 in one run beside the look-back kernel above (default
///   float32 0.816 ms, float64 1.61): float32 4 granules a tile, 8 / 4 warps a role, 5 stages 1.04 /
///   1.17 ms, 2 granules 8 warps 8 stages 1.68; float64 2 granules 4 warps 5 stages 1.93, 1 granule 10
///   stages 2.58. Slower by 27% and more: each run of 16 consecutive items went through a padded
///   transposition in shared memory twice, reduce and scan, on top of the stage, where the default
///   scan's odd runs read the stage without conflicts. Hence runs of 17.
/// What the deterministic pipelines' tiles share: `Granules` granules a tile, `RoleWarps` warps a role,
/// `Stages` tiles in shared memory at once.
template <int Granules, int RoleWarps, int Stages>
struct deterministic_pipeline_shape {
  static constexpr int granules_per_tile = Granules;
  static constexpr int role_warps = RoleWarps;
  static constexpr int stages = Stages;
  static constexpr int window_granules = deterministic_granule::window_granules;
  static_assert(window_granules % Granules == 0, "a tile may not straddle a window");
  static_assert(Granules * deterministic_granule::warps % RoleWarps == 0, "whole granule warps a role warp");
  static constexpr int tile_items = Granules * deterministic_granule::items;
};

/// The deterministic scan on the look-ahead pipeline (device/deterministic_scan_lookahead_kernel.cuh):
/// `Granules` granules a tile, `RoleWarps` reduce warps and as many scan warps (each takes one or more
/// of a tile's granule warps), `Stages` tiles in shared memory at once. The bits are the same.
template <int Granules, int RoleWarps, int Stages>
struct deterministic_scan_lookahead_config : deterministic_pipeline_shape<Granules, RoleWarps, Stages> {
  static constexpr int threads = (2 * RoleWarps + 3) * 32;  // reduce, scan, load, look-ahead, window
};

/// The deterministic reduction on the look-ahead pipeline (device/deterministic_reduce_lookahead_kernel.cuh):
/// `Granules` granules a tile, `RoleWarps` reduce warps, `Stages` tiles in shared memory at once. The
/// bits are the deterministic scan's total.
template <int Granules, int RoleWarps, int Stages>
struct deterministic_reduce_lookahead_config : deterministic_pipeline_shape<Granules, RoleWarps, Stages> {
  static constexpr bool reduces_only = true;
  static constexpr int threads = (RoleWarps + 3) * 32;  // reduce, load, window, chain
};

/// Runs of 17, in one run each (exclusive sum, ms; the default float32 scan in the same run: H100
/// 0.726 at 2^28 and 0.0578 at 2^24, H200 0.528 and 0.0480):
///   The look-back kernel: H100 / H200 at 2^28, 4 granules capped for four blocks 1.39 / 1.05 (17
///     items a thread no longer fit 32 registers), three blocks 1.05 / 0.87, three blocks prefetching
///     66 / 132 tiles ahead 0.956 / 0.976 and 0.785 / 0.788; float64 2 granules 1.96 / 1.62.
///   The pipeline with the window's aggregate published by the look-ahead of the tile closing it,
///     H200 at 2^28: 4 granules 4 / 8 warps 6 stages 0.740 / 0.772, 2 granules 12 stages 0.994 (each
///     look-ahead waited on others a round behind it); with a window warp publishing it from the
///     reductions alone: H100 / H200 at 2^24 and 2^28,
///     float32  4 granules 4 warps 6 stages   0.066 / 0.057   0.795 / 0.634
///              4 granules 8 warps 6 stages   -               0.786 / 0.624
///              2 granules 4 warps 12 stages  0.064 / 0.053   0.753 / 0.565   (kept)
///              2 granules 8 warps 12 stages  0.061 / 0.052   0.750 / 0.586
///              2 granules 2 warps 12 stages  0.068 / 0.067   0.756 / 0.741
///              2 granules 4 warps 10 stages  0.062 / 0.053   0.758 / 0.577
///              1 granule 4 warps 24 stages   0.074 / 0.065   0.868 / 0.811
///     float64  2 granules 4 warps 6 stages   0.109 / 0.086   1.50 / 1.16     (kept)
///              1 granule 4 warps 12 stages   0.107 / 0.089   1.49 / 1.18
///              1 granule 2 warps 12 stages   0.107 / 0.089   1.49 / 1.16
///   The public float32 call in the main table: H100 0.0612 / 0.747 ms (+6% / +3% over the default
///     scan), H200 0.0521 / 0.567 (+9% / +7%); at 6934302 H100 0.0591 / 0.744 (+5% / +3%), another
///     H200 0.0534 / 0.587 (+9% / +11%; its tuning row of the same policy 0.567).
/// The deterministic reduction, first the look-back kernel above without its stores: 1.3x / 1.7x / 1.7x
///   the default reduction's time at 2^20 / 2^24 / 2^28 float32. In two plain passes instead (a block
///   per tile writing each granule's aggregate, then one block folding the windows), the same bits:
///   0.021 / 0.047 / 0.458 ms against 0.0086 / 0.049 / 0.598 (default 0.007 / 0.029 / 0.353); its
///   folding thread walked every slot of a round, and the granule pass alone took 0.41 ms at 2^28.
///   On the look-ahead pipeline (device/deterministic_reduce_lookahead_kernel.cuh), H100, one run each
///   at 61025fc / edbe88a, ms at 2^20 / 2^24 / 2^28 (float64 2^27):
///     with each window's prefix found by the window warp's look-back before it freed the stage:
///       float32 2g 4w 12s 0.008 / 0.044 / 1.53, 2g 8w 12s 1.58 at 2^28, 2g 2w 12s 1.12, 4g 8w 6s 2.11,
///       1g 4w 24s 0.801; float64 2g 4w 6s 0.010 / 0.072 / 0.715, 1g 4w 12s 0.624 at 2^27: blocks
///       queued behind each other's look-backs;
///     with the windows folded by one chain warp instead (the default reduction 0.006 / 0.029 / 0.343,
///     the look-back kernel 0.009 / 0.050 / 0.601, float64 0.010 / 0.087 / 0.606):
///       float32  2 granules 4 warps 12 stages   0.008 / 0.031 / 0.348   (kept)
///                2 granules 8 warps 12 stages   0.008 / 0.031 / 0.347
///                2 granules 2 warps 12 stages   0.010 / 0.035 / 0.397
///                4 granules 8 / 16 warps 6 st.  0.008 / 0.031 / 0.347
///                1 granule 4 warps 24 stages    0.009 / 0.034 / 0.427
///       float64  2 granules 4 warps 6 stages    0.010 / 0.053 / 0.347   (kept)
///                2 granules 8 warps 6 stages    0.009 / 0.053 / 0.347
///                1 granule 4 warps 12 stages    0.010 / 0.052 / 0.348
///     with the window warp waiting on every tile's reduction (synccheck), e1e8972: float32 kept 0.008 /
///     0.031 / 0.351 (default 0.007 / 0.029 / 0.343), float64 kept 0.010 / 0.054 / 0.348.
/// Where they apply (Hopper and later, aligned arrays), scans from lookahead_min_items and reductions
/// from reduce_lookahead_min_items on the look-ahead pipeline; elsewhere the look-back kernel.
template <class T>
struct deterministic_scan
    : deterministic_scan_config<sizeof(T) <= 4 ? 4 : 2, 1100, sizeof(T) <= 4 ? 3 : 1, sizeof(T) <= 4 ? 66 : 132> {
  using lookahead = std::conditional_t<sizeof(T) <= 4, deterministic_scan_lookahead_config<2, 4, 12>,
                                       deterministic_scan_lookahead_config<2, 4, 6>>;
  static constexpr std::int64_t lookahead_min_items = std::int64_t{1} << 18;
  using reduce_lookahead = std::conditional_t<sizeof(T) <= 4, deterministic_reduce_lookahead_config<2, 4, 12>,
                                              deterministic_reduce_lookahead_config<2, 4, 6>>;
  static constexpr std::int64_t reduce_lookahead_min_items = std::int64_t{1} << 18;
};

}  // namespace lookback::policy
