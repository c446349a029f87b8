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
#include <cstddef>
#include <type_traits>

namespace lookback::policy {

/// The up-front histogram: threads per block and 16-byte loads per thread per trip.
template <int Threads, int VectorsInFlight>
struct radix_histogram_config {
  static constexpr int threads = Threads;
  static constexpr int vectors_in_flight = VectorsInFlight;
};

/// One digit pass: threads per block (the first 256 also own a digit each for the look-back), keys
/// per thread, the wait before a digit's first look-back poll, blocks per SM the registers must allow,
/// and the form of the ranking's votes (radix_sort/warp_rank.cuh).
template <int Threads, int ItemsPerThread, int InitialDelayNs, int MinBlocks, bool InlineVotes>
struct onesweep_config {
  static constexpr int threads = Threads;
  static constexpr int min_blocks = MinBlocks;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int tile_items = threads * ItemsPerThread;
  static constexpr int initial_delay_ns = InitialDelayNs;
  static constexpr bool inline_votes = InlineVotes;
};

/// Value: radix::no_value for keys only. Keys or values of 8 bytes take smaller tiles.
template <class Key, class Value>
struct radix_sort {
  static constexpr bool keys_only = std::is_empty_v<Value>;
  static constexpr bool wide = sizeof(Key) == 8 || (!keys_only && sizeof(Value) == 8);
  using histogram = radix_histogram_config<256, 4>;
  using keys_pass = std::conditional_t<wide, onesweep_config<384, 24, 0, 2, true>, onesweep_config<384, 32, 0, 2, true>>;
  using pairs_pass =
      std::conditional_t<wide, onesweep_config<512, 16, 0, 2, false>, onesweep_config<512, 24, 0, 2, false>>;
  using onesweep = std::conditional_t<keys_only, keys_pass, pairs_pass>;
};

}  // namespace lookback::policy
