#pragma once
// Tuning of the reduction, kept apart from the kernels.
namespace lookback::policy {

/// 256 threads, each with `vectors_in_flight` independent 16-byte loads per loop trip, and a grid
/// of as many blocks as are resident at once on the device: enough loads in flight to cover DRAM
/// latency with one pass and a partial per block.
template <class T>
struct reduce {
  static constexpr int threads = 256;
  static constexpr int vectors_in_flight = 4;
  static constexpr int final_threads = 256;
};

}  // namespace lookback::policy
