#pragma once
// Tuning of the radix sort, kept apart from the code; bench/radix_sort_bench.cu times it beside
// cub::DeviceRadixSort. Measured on an H100 (CUDA 13.0), medians of 15, CUB beside in the same run:
//  - 2^28 uint32 keys: the first design (256 threads of 16 keys, ranks then per-warp offsets, values
//    held in registers through the ranking) 8.97 ms against CUB's 6.41. Per-warp counts scanned before
//    ranking so that ranks are final slots, values loaded after the keys have gone, tiles of 384
//    threads: 20 keys a thread 6.79 ms, 24: 6.40, 28: 6.20 (CUB 6.41), 30: 6.25. Registers capped
//    for two blocks an SM: uncapped (95 registers, one block) 10.21 ms at 20 keys.
//  - Counts kept apart from the staging (dynamic shared memory past 48 KiB), so each key is staged as
//    soon as it is ranked, and digits recomputed rather than held: registers no longer limit the tile
//    so soon. 2^28 uint32 keys: 384 x 32 5.99 ms, 256 x 36 (three blocks an SM) 5.71, 256 x 40 5.63
//    (CUB 6.40). ncu then showed the integer pipe 86% busy; with the digit votes in CUB's PTX form
//    (inline_votes): 256 x 36 4.93, 384 x 32 4.78 (1.34x CUB). 2^27 uint64 keys: 256 x 20 8.44, 384 x 22
//    7.97, 384 x 24 7.95, 384 x 26 spills, 8.57 (CUB 8.52); with inline votes 384 x 24 7.68 (1.11x).
//  - Pairs, with slots and digits held packed for the values: 2^28 uint32/uint32 384 x 23 9.01, 384 x
//    32 8.45, 512 x 24 8.40 (CUB 8.80); inline votes make them slower (384 x 32 8.70, 512 x 24 8.68),
//    and so does loading the values before the keys' scatter (spills). 2^27 uint64/uint64: 384 x 12
//    16.66, 384 x 22 15.33, 512 x 16 15.27 (CUB 16.04); inline votes 15.43.
//  - The up-front histogram of 2^28 uint32 keys: 745 us with a loop over a run-time pass count, 559 us
//    CUB's; unrolled over the key's passes (pass_plan.cuh) the whole sort gained 0.14 ms.
//  - Small sizes (bench/radix_sort_tuning_bench.cu). ncu at 2^16 uint32 keys showed 6 tiles a pass, a
//    pass 13.5 us (CUB's 11.2), a separate planning kernel 6.4 us and a copy kernel 2.9 us. With the
//    plan in the histogram's last block, copies done by a skipped pass, and each pass launched
//    dependent on the kernel before it: keys 2^16 0.038-0.043 ms in 256 x 8 tiles, 0.041 in 384 x 16,
//    0.057 in the large tiles (CUB 0.062-0.070); 2^18 384 x 16 0.049, large 0.060; 2^19 0.058 and
//    0.066; 2^20 0.075 both (256 x 8 0.087). Pairs: 384 x 12 at 2^16 0.048 (large 0.071, CUB 0.073),
//    2^20 0.089 (large 0.105, CUB 0.093), 2^22 0.218 (large 0.197).
//  - 2^28 uint32 keys again, one run: 384 x 32 4.80 ms, 512 x 24 4.70 (2^24: 0.371 and 0.358 ms), 512 x
//    20 4.95, 512 x 16 5.47; capped for more blocks an SM, 384 x 24 three blocks 5.01, 256 x 24 four
//    5.55. ncu of a 384 x 32 pass: 37% occupancy (registers and shared memory both allow two blocks),
//    ALU 61%, DRAM 52%, a warp issuing every 11 cycles: latency-bound. Pairs capped for three or four
//    blocks: 11.3-11.8 ms against 8.57. Histogram trips of 2 or 8 vectors: 4.90 and 4.81 against 4.80.
//    512 x 24 is not taken: its 66 KiB a block would no longer fit Turing's 64 KiB, for 2%.
//  - Pairs with each tile's values copied into shared memory by cp.async as the tile starts (no
//    registers, no load after the keys' scatter), 2^28 uint32/uint32 in one run: 384 x 24 8.94 ms, 512 x
//    20 9.62, 512 x 24 11.3 (one block an SM), against 8.38 for the values loaded after the keys; 384 x
//    12 at 2^20 0.096 against 0.093. Not kept.
//  - Equal digits found by __match_any_sync (one instruction) instead of eight ballots, one run:
//    2^28 keys 384 x 32 9.30 ms against 4.77, pairs 512 x 24 10.3 against 8.54; 2^16 keys 384 x 16
//    0.058 against 0.043. Hopper's match is far slower than the ballots it replaces. Not kept.
//  - Float32 keys in [0, 1) sort slower than uint32 over every bit (2^28: 5.14 ms against 4.79; CUB
//    5.71 against 6.46): their top byte takes a few values. Counting each warp's keys per digit by
//    votes, one add for all lanes of a digit, instead of an atomic a key that queues on the same word
//    when digits repeat: float32 6.57 ms, uint32 6.02, pairs of float32 keys 10.6 against 8.12. The
//    same-word atomics are not what skew costs. Not kept.
//  - ncu per kernel, 2^28 keys, base clocks: uint32 histogram 584 us and each pass 1.25 ms (541 M warp
//    instructions, ALU 61%, 2 IPC, 37% occupancy); float32 658 us and 1.32-1.39 ms, with 16% more
//    instructions (a float's digit, recomputed three times a key, costs a -0.0 test and a flip: seven
//    instructions against two), so skew is not the cause either; int32 610 us and 1.27 ms. Stall
//    samples of a float pass: ranking 41%, the look-back and the barrier after it 18%, the scatter
//    17%, load, count and scans 23%.
//  - The look-back reading 1, 2 or 4 predecessors at a time (tile/chained_lookback.cuh), 2^28 uint32
//    keys: 4.79-4.83 / 4.69-4.71 / 4.82-4.84 ms (2^24: 0.365 / 0.352 / 0.348); pairs 8.22-8.43 /
//    8.41-8.66 / 8.51; uint64 keys within 1%. Small tiles, 2^16 / 2^18 / 2^19 / 2^20: keys (384 x 16)
//    0.040 / 0.051 / 0.056 / 0.074 against 0.044 / 0.046 / 0.053 / 0.070 with 2; pairs (384 x 12)
//    0.048 / 0.058 / - / 0.090, with 2 0.046 / 0.052 / - / 0.084, with 4 0.045 / 0.051 / - / 0.082 (CUB
//    0.070 and 0.089 at 2^16 and 2^20). Large keys and small keys take 2, small pairs 4, large pairs 1.
//  - Not kept, 2^28 uint32 keys with a window of 2 (4.71 ms): the ranking's leader atomic predicated in
//    PTX instead of branched around, 4.74; keys loaded with ld.global.cs 4.88, ld.global.nc 4.80;
//    scattered with st.global.cg 4.83, st.global.cs 4.85. Pairs: ld.global.cs 9.06, st.global.cs 11.0
//    against 8.41.
//  - Each block prefetching into L2 the keys (and values) of the tile 16 to 528 ids ahead
//    (thread/l2_prefetch.cuh, which took the scan to 95% of a memcpy), 2^28 uint32 keys against 4.69-4.72
//    ms: 16 / 32 / 64 ahead 4.61-4.81 / 4.73-4.81 / 4.74-4.81, 132 / 264 / 528 4.73 / 4.98 / 5.49;
//    pairs against 8.24-8.33: 16 / 32 / 64 9.51-9.56 / 9.59-9.65 / 9.78-9.86, 132 10.4. A pass is
//    not waiting on DRAM (52% busy): the prefetches only take L2 from the scatter. Not kept.
//  - Bit ranges: the histogram unrolled for each pass count (pass_plan.cuh), bits [8, 24) of 2^28
//    uint32 keys 2.51 -> 2.48-2.49 ms (full width 4.68-4.69).
//  - The histogram, ncu at 2^28 uint32 keys: L1/TEX 99% busy, DRAM 57%, warps waiting on the MIO queue
//    half their time, 566 us: its shared atomics, not DRAM, bound it. Counters copied for each lane
//    (radix_sort/digit_counters.cuh): 16 copies 426 us (L1 96%, DRAM 75%); 32 copies (128 KiB, one
//    block an SM) 531 us; 32 copies of 16-bit counters packed two a word 600 us (the packing made it
//    ALU-bound, SM 88%). Whole sorts against one copy, two runs: 16 copies keys 2^28 4.60 / 4.60 ms
//    against 4.61 / 4.69, pairs 8.22 / 8.29 against 8.30 / 8.35; uint64 keys 2^27 7.65 against 7.59
//    (eight passes of 16 copies fit one block an SM), so 8-byte keys keep one copy. Small tiles at
//    2^20, four runs: keys 0.068 / 0.073 / 0.069 / 0.075 against 0.077 / 0.070 / 0.077 / 0.071, pairs
//    0.081 / 0.089 / 0.080 / 0.090 against 0.093 / 0.083 / 0.093 / 0.085; 2^16 level or worse (0.046
//    against 0.043 in the fourth): bimodal, likely by the carveout the kernel before left the
//    histogram's 64 KiB blocks (see below; not measured with the histogram's own carveout pinned), so
//    small sizes keep one copy. Where 16 copies leave fewer
//    than two blocks an SM (GPUs with 100 KiB of shared memory an SM), or do not fit a block, the sort
//    counts with one (radix_sort.cuh); only the H100 was measured.
//  - Those copied counters first made the whole sort slower (2^28 keys 4.93 ms against 4.62) while ncu
//    timed each kernel faster: an SM keeps the split between L1 and shared memory that the kernel before
//    left as long as the next blocks fit, so the passes ran with the histogram's large shared carveout
//    and less L1. Each pass now asks for the carveout its own blocks need
//    (detail::prefer_carveout_for_occupancy), which gave back 4.60.
//  - A full tile's keys brought into the staging by one bulk copy (cp.async.bulk on an mbarrier, started
//    by the thread that takes the tile), then read warp-striped from shared memory, against each thread's
//    loads, one run: keys 2^28 4.75 ms against 4.55, 2^24 0.376 against 0.350; pairs (512 x 24) 2^28
//    8.18 against 8.43, 2^24 0.591 against 0.575; uint64 keys 2^27 7.83 against 7.71; small tiles
//    level. Every thread waits for the whole tile before it counts. Not kept.
//  - Digits matched by each lane's bit set in a shared word of its warp and digit (CUB's
//    WARP_MATCH_ATOMIC_OR, three shared-memory operations a key instead of eight votes), one run: keys
//    2^28 4.88 ms against 4.63, 2^24 0.384 against 0.356; pairs 8.66 against 8.47; uint64 keys 2^27
//    7.98 against 7.69. Not kept. (A signed division by 32 for the warp's row made the kernels with
//    votes spill 108-156 bytes: the warp index stays unsigned.)
//  - Held timing from here on (typed::stream_hold: the GPU's time, bench/results/timing-held-stream.md).
//    Digits of 11 bits, one run at a03afdd plus the change (the attempt is not in the tree): three passes
//    over 32-bit keys, six over 64-bit ones; 2048 digits a tile, the warps' counters two 16-bit counts a
//    word (two blocks of 384 an SM still fit), each thread owning six consecutive digits and walking
//    their look-back chains together (every poll of a round in flight at once), the histogram counting
//    2048 digits a pass with one copy of its counters. 2^20 / 2^24 / 2^28 uint32 keys against this
//    policy's 0.0745 / 0.356 / 4.63 ms: 384 x 32 0.181 / 0.959 / 13.2, 384 x 24 0.175 / 1.11 / 15.7, 256 x
//    48 - / 1.16 / 16.2, 256 x 32 three blocks - / 1.75 / 25.5; float32 384 x 32 0.961 / 13.2 at 2^24 /
//    2^28 against 0.372 / 4.93. Pairs against 0.111 / 0.562 / 8.08: 384 x 24 0.211 / 1.39 / 20.0, 384 x
//    32 - / 1.29 / 18.0. uint64 keys at 2^24 / 2^27 against 1.02 / 7.63: 384 x 16 3.14 / 23.5, 256 x 24
//    3.91 / 29.0. Each 11-bit pass took about four of today's 8-bit passes' time, not profiled: its
//    descriptors (8 bytes a digit, 16 KiB a tile, 358 MB at 2^28 against 45 MB) are written twice and
//    read by successors far past L2, every tile works over 2048 digits (48 KiB of counters zeroed,
//    scanned over warps and digits), a tile's scatter writes 2048 runs of about six keys, and pairs and
//    floats spilled 72-184 bytes. Not kept.
//  - Pairs whose tile asks L2 for its values as it starts (one bulk prefetch by the thread that takes
//    the tile, so that the load after the keys' scatter meets L2), one run: 512 x 24 at 2^20 / 2^24 /
//    2^28 0.106 / 0.618 / 9.49 ms against 0.106 / 0.561 / 8.39; small 384 x 12 at 2^16 / 2^18 / 2^20 /
//    2^21 0.0406 / 0.0484 / 0.0774 / 0.119 against 0.0410 / 0.0488 / 0.0773 / 0.119. Not kept: at large
//    sizes the prefetched values take L2 from the scatter.
//  - Where a pass's time goes, 2^28 uint32 keys, held timing, one run, with parts of the pass replaced
//    (timing only, outputs wrong; not in the tree): as it is 4.53 ms; the scatter replaced by a
//    coalesced store of the staged tile 4.03; that store with the scatter's address still formed (the
//    digit read back, its offset loaded from shared memory) 4.34; the look-back's wait also replaced by
//    an estimated offset 3.63 (a pass about 0.80 ms, a memcpy 0.72). So a pass spends about 0.05 ms on
//    scattered rather than coalesced writes, 0.08 on forming the scatter's addresses and 0.10 on the
//    look-back; 1.7x CUB (3.8 ms) would need nearly all of that gone.
//  - ncu of a 384 x 32 pass (base clocks, stall samples): loads 10%, counting and scans 19%, ranking 39%,
//    the look-back and the barrier after it 16%, the scatter 16% (each store waiting on two dependent
//    shared loads: the stores go through the plan's generic pointers, which might alias shared memory,
//    so the compiler keeps later shared loads behind them). Measured against the ranking as it is, one
//    run each, ms at 2^20 / 2^24 / 2^28 keys:
//     - the first pass of full-width integer keys ranked in any order (the counting's atomics return
//       each key's place, no votes; only that pass may, its input order being arbitrary): ncu timed that
//       pass 1.02 ms against 1.21 with half the instructions, but whole sorts moved 0-2.5% at 2^28
//       (4.49 / 4.66 / 4.52 against 4.53 / 4.66 / 4.63 in three runs), by -1% to +1% at 2^24, and small
//       tiles lost 10-14% (atomics whose results are used no longer merge a warp's equal digits): not kept;
//     - the scatter's stores as st.global (inline PTX, no memory clobber): keys 4.72 against 4.51, pairs
//       10.67 against 8.30; not kept. Again through the compiler (__builtin_assume(__isGlobal(...)) on
//       the keys' and values' output pointers: every scatter store st.global, no spills, 80 registers
//       as before), public sorts in one call, held timing, three rounds (bench/results/
//       h100-pass-start-restored-fb4e2ca.md, section 6): keys 2^20 / 2^24 / 2^28 0.0732-0.0734 /
//       0.3633-0.3636 / 4.715-4.718 against 0.0702-0.0704 / 0.3481-0.3493 / 4.497-4.501, pairs 2^28
//       8.245-8.258 against 8.133-8.161, uint64 keys 2^27 7.758-7.761 against 7.432-7.453: stores known
//       to be global lose 1-5% everywhere. Not kept;
//     - the scatter in batches of 4 / 8 / 16 items, each batch's shared loads before its stores: keys
//       0.0735 / 0.0740 / 0.0759, 0.351 / 0.357 / 0.367, 4.57 / 4.66 / 4.82 against 0.0701, 0.346, 4.55;
//       pairs (2^20 / 2^24 / 2^28) 0.118 / 0.698 / 10.5 with 4 against 0.109 / 0.569 / 8.35; small tiles
//       level; not kept.
//  - Each block reads the pass's plan, then takes its tile id: two trips to L2 one after the other before
//    its first load. The thread that takes the id reading the plan while the id is on its way (8e1fd3a,
//    undone since) measured, in tuning rows that kept the rest of that start in both arms (two runs
//    each, ms): keys 2^16 / 2^18 / 2^19 (small tiles) 0.0340 / 0.0409 / 0.0495 against 0.0359 / 0.0427 /
//    0.0515, 2^20 / 2^24 / 2^28 0.0697 / 0.3567 / 4.53 against 0.0730 / 0.3615 / 4.57; pairs 2^16 / 2^18 /
//    2^20 0.0396 / 0.0461 / 0.0861 against 0.0414 / 0.0480 / 0.0880, 2^22 / 2^24 / 2^28 0.2297 / 0.610 /
//    8.65 against 0.2324 / 0.611 / 8.56; uint64 keys 2^24 / 2^27 1.003 / 7.69 against 1.016 / 7.68.
//    The public sorts built from
//    696402a (before the change), 60b16d9 and 7faa111 (after it), timed in one call (CUDA events around
//    each call, medians of 15, two rounds; bench/results/h100-pairs-lookback-first-7faa111.md) say the
//    change cost more than it gave: pairs 2^20 / 2^24 / 2^28 0.0835-0.0844 / 0.5650-0.5658 / 8.11-8.13
//    before, 0.0890-0.0903 / 0.6126-0.6151 / 8.49-8.51 after (+5% to +9%); keys 2^24 0.3565-0.3582
//    against 0.3675-0.3705 (+3%), 2^20 0.0754-0.0758 against 0.0747-0.0750 (-1%), 2^28 level. The
//    earlier start is the one kept.
//  - Pairs looking back before ranking rather than after it (each tile's inclusive counts published a
//    ranking sooner), and their values prefetched into L2 once the keys are ranked (one bulk prefetch
//    by thread 0, so that DRAM reads them while the keys are scattered). Four runs on four H100s, ms,
//    ranges over every run's medians (bench/results/h100-pairs-lookback-first-7faa111.md):
//    uint32/uint32 512 x 24 at 2^24 / 2^28: as before 0.6038-0.6114 / 8.56-8.64; looking back first
//    0.5975-0.6025 / 8.40-8.50; prefetching 0.5912-0.5964 / 8.44-8.53; both 0.5912-0.5957 / 8.39-8.49
//    (-1.4% to -2.5% / -1.7% to -2.0% within each run; kept at 7faa111, undone in fb4e2ca); prefetching as the look-back starts,
//    before the ranking, 0.6139-0.6196 / 9.08-9.12.
//    Small 384 x 12, 2^16 / 2^18 / 2^20: uint32/uint32 looking back first 0.0393-0.0398 / 0.0451-0.0465 /
//    0.0846-0.0887 against 0.0395-0.0401 / 0.0460-0.0474 / 0.0850-0.0891 (kept at 7faa111, undone in
//    fb4e2ca), prefetching too
//    0.0401-0.0402 / 0.0468-0.0469 / 0.0895; uint64/uint64 0.0803-0.0805 / 0.1068-0.1069 / 0.1754-0.1756
//    against 0.0813-0.0816 / 0.1082-0.1084 / 0.1797-0.1801 (kept at 7faa111, undone in fb4e2ca).
//    The wide 512 x 16: uint64/uint64 at 2^24 / 2^27 looking back first 1.9995-2.0003 / 15.35-15.38
//    against 1.9801-1.9802 / 15.36-15.38, both 2.0355-2.0357 / 15.76-15.78; uint32 keys / uint64 values
//    at 2^24 / 2^28 looking back first 0.8154-0.8158 / 12.02-12.04, both 0.8112-0.8117 / 12.18-12.20,
//    against 0.8033-0.8035 / 11.91-11.94 (0.8% to 2.3% slower): not kept.
//    Keys (384 x 32 with the votes as ballots: ptxas could not allocate registers for the CUB-form
//    votes looking back first) at 2^24 / 2^28: looking back first 0.4355-0.4383 / 5.81-5.82 against
//    0.4216-0.4245 / 5.72; small keys 2^18 0.0556-0.0558 against 0.0473-0.0474: not kept.
//    Those rows were measured with 8e1fd3a's start. With the earlier start restored, the public sorts
//    (commit_ab, one call, three rounds, medians of 15, ms, timed with the host's submission inside as
//    commit_ab then did; bench/results/h100-pass-start-restored-fb4e2ca.md): uint32 pairs 2^20 / 2^24 /
//    2^28 with no flag 0.0826-0.0865 / 0.5807-0.5871 / 8.14-8.18; small tiles looking back first
//    0.0908-0.1004 at 2^20; large ones looking back first and prefetching 8.34-8.35 at 2^28; prefetching
//    alone 0.5746-0.5806 / 8.27 (1% faster at 2^24, 1.3% slower at 2^28); looking back first alone
//    0.5857-0.5921 / 8.32-8.35. Not kept: the flags and their tuning rows left the tree after fb4e2ca.
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace lookback::policy {

/// The up-front histogram: threads per block, 16-byte loads per thread per trip, and the copies of
/// its counters (0: one for the block; 16 or 32: radix_sort/digit_counters.cuh).
template <int Threads, int VectorsInFlight, int LaneCopies = 0>
struct radix_histogram_config {
  static constexpr int threads = Threads;
  static constexpr int vectors_in_flight = VectorsInFlight;
  static constexpr int lane_copies = LaneCopies;
  using single_copy = radix_histogram_config<Threads, VectorsInFlight>;
};

/// One digit pass: threads per block (the first 256 also own a digit each for the look-back), keys
/// per thread, the wait before a digit's first look-back poll, blocks per SM the registers must allow,
/// the form of the ranking's votes (radix_sort/warp_rank.cuh), and how many predecessors a digit's
/// look-back reads at a time.
template <int Threads, int ItemsPerThread, int InitialDelayNs, int MinBlocks, bool InlineVotes, int LookbackWindow = 1>
struct onesweep_config {
  static constexpr int lookback_window = LookbackWindow;
  static constexpr int threads = Threads;
  static constexpr int min_blocks = MinBlocks;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int tile_items = threads * ItemsPerThread;
  static constexpr int initial_delay_ns = InitialDelayNs;
  static constexpr bool inline_votes = InlineVotes;
};

/// A sort's kernels at one size: the up-front histogram and the digit passes.
template <class Histogram, class Onesweep>
struct radix_sort_passes {
  using histogram = Histogram;
  using onesweep = Onesweep;
};

/// Value: radix::no_value for keys only. Keys or values of 8 bytes take smaller tiles. Up to
/// small_max_items, small tiles: a pass over few large tiles is one block's latency, not bandwidth.
template <class Key, class Value>
struct radix_sort {
  static constexpr bool keys_only = std::is_empty_v<Value>;
  static constexpr bool wide = sizeof(Key) == 8 || (!keys_only && sizeof(Value) == 8);
  static constexpr std::int64_t small_max_items = std::int64_t{1} << (keys_only ? 19 : 21);
  // The large sizes' histogram counts into 16 copies of its counters for keys of up to 4 bytes (0: one
  // copy for the block). Keys of 8 bytes count eight passes, for which 16 copies take 128 KiB a block;
  // small sizes measured no better with copies.
  static constexpr int histogram_copies = sizeof(Key) <= 4 ? 16 : 0;
  using small = radix_sort_passes<
      radix_histogram_config<256, 1>,
      std::conditional_t<keys_only, onesweep_config<384, 16, 0, 2, true, 2>, onesweep_config<384, 12, 0, 2, false, 4>>>;
  using keys_pass =
      std::conditional_t<wide, onesweep_config<384, 24, 0, 2, true, 2>, onesweep_config<384, 32, 0, 2, true, 2>>;
  using pairs_pass =
      std::conditional_t<wide, onesweep_config<512, 16, 0, 2, false>, onesweep_config<512, 24, 0, 2, false>>;
  using large = radix_sort_passes<radix_histogram_config<256, 4, histogram_copies>,
                                  std::conditional_t<keys_only, keys_pass, pairs_pass>>;
};

}  // namespace lookback::policy
