#pragma once
// Tuning of the radix sort, kept apart from the code; bench/radix_sort_bench.cu times it beside
// cub::DeviceRadixSort.
namespace lookback::policy {

/// The up-front histogram: threads per block and 16-byte loads per thread per trip.
template <int Threads, int VectorsInFlight>
struct radix_histogram_config {
  static constexpr int threads = Threads;
  static constexpr int vectors_in_flight = VectorsInFlight;
};

/// One digit pass: keys per thread (256 threads, a thread per digit for the look-back); the wait
/// before a digit's first look-back poll.
template <int ItemsPerThread, int InitialDelayNs>
struct onesweep_config {
  static constexpr int threads = 256;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int tile_items = threads * ItemsPerThread;
  static constexpr int initial_delay_ns = InitialDelayNs;
};

template <class Key>
struct radix_sort {
  using histogram = radix_histogram_config<256, 4>;
  using onesweep = onesweep_config<sizeof(Key) <= 4 ? 16 : 12, 0>;
};

}  // namespace lookback::policy
