#pragma once
// Tuning of the radix sort, kept apart from the code; bench/radix_sort_bench.cu times it beside
// cub::DeviceRadixSort. Measured on an H100 (CUDA 13.0), 2^28 uint32 keys over all 32 bits (CUB
// 6.41 ms): ranking with __match_any_sync 12.56 ms; with a ballot per digit bit 11.04 ms (76
// registers, three blocks of 256 per SM; the digit counts published after ranking); digit counts
// published before ranking and registers capped for four blocks per SM 8.97 ms. Pairs (CUB 8.89 ms):
// 15.00 ms uncapped (94 registers, two blocks), 17.39 ms capped for four (spilling).
#include <type_traits>

namespace lookback::policy {

/// The up-front histogram: threads per block and 16-byte loads per thread per trip.
template <int Threads, int VectorsInFlight>
struct radix_histogram_config {
  static constexpr int threads = Threads;
  static constexpr int vectors_in_flight = VectorsInFlight;
};

/// One digit pass: keys per thread (256 threads, a thread per digit for the look-back); the wait
/// before a digit's first look-back poll; blocks per SM the registers must allow.
template <int ItemsPerThread, int InitialDelayNs, int MinBlocks>
struct onesweep_config {
  static constexpr int threads = 256;
  static constexpr int min_blocks = MinBlocks;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int tile_items = threads * ItemsPerThread;
  static constexpr int initial_delay_ns = InitialDelayNs;
};

/// Value: radix::no_value for keys only.
template <class Key, class Value>
struct radix_sort {
  using histogram = radix_histogram_config<256, 4>;
  using onesweep = onesweep_config<sizeof(Key) <= 4 ? 16 : 12, 0, std::is_empty_v<Value> ? 4 : 2>;
};

}  // namespace lookback::policy
