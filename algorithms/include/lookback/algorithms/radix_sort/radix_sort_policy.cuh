#pragma once
// Tuning of the radix sort, kept apart from the code; bench/radix_sort_bench.cu times it beside
// cub::DeviceRadixSort. Measured on an H100 (CUDA 13.0), medians of 15, CUB beside in the same run:
//  - 2^28 uint32 keys: the first design (256 threads of 16 keys, ranks then per-warp offsets, values
//    held in registers through the ranking) 8.97 ms against CUB's 6.41. Per-warp counts scanned before
//    ranking so that ranks are final slots, values loaded after the keys have gone, tiles of 384
//    threads: 20 keys a thread 6.79 ms, 24: 6.40, 26: 6.29, 28: 6.20 (CUB 6.41), 30: 6.25; 256
//    threads of 28 keys, three blocks an SM, 6.28. Registers capped for two blocks an SM: uncapped
//    (95 registers, one block) 10.21 ms at 20 keys.
//  - 2^28 uint32/uint32 pairs: 384 threads of 20 values 9.54 ms, 23: 8.96, 25: 8.91 (CUB 8.79-8.82);
//    256 threads of 26: 10.97; 448 of 20: 8.97. Asking L2 for the values before ranking: 9.52 at 23.
//  - 2^27 uint64 keys: 384 threads of 12 keys 9.47 ms, 13: 9.18, 15: 8.67 (CUB 8.59); 256 threads of
//    18: 8.64, 20: 8.51 (CUB 8.55), 22: 9.38.
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
/// per thread, the wait before a digit's first look-back poll, blocks per SM the registers must allow.
template <int Threads, int ItemsPerThread, int InitialDelayNs, int MinBlocks>
struct onesweep_config {
  static constexpr int threads = Threads;
  static constexpr int min_blocks = MinBlocks;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int tile_items = threads * ItemsPerThread;
  static constexpr int initial_delay_ns = InitialDelayNs;
};

/// Value: radix::no_value for keys only. Staging at most 48 KiB of static shared memory.
template <class Key, class Value>
struct radix_sort {
  static constexpr bool keys_only = std::is_empty_v<Value>;
  static constexpr std::size_t widest = keys_only || sizeof(Key) >= sizeof(Value) ? sizeof(Key) : sizeof(Value);
  using histogram = radix_histogram_config<256, 4>;
  using onesweep = std::conditional_t<
      keys_only, std::conditional_t<widest <= 4, onesweep_config<384, 28, 0, 2>, onesweep_config<256, 20, 0, 3>>,
      std::conditional_t<widest <= 4, onesweep_config<384, 23, 0, 2>,
                         std::conditional_t<sizeof(Key) == 8 && sizeof(Value) == 8, onesweep_config<384, 12, 0, 2>,
                                            onesweep_config<384, 15, 0, 2>>>>;
};

}  // namespace lookback::policy
