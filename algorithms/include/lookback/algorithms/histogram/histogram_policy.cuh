#pragma once
// Tuning of the histogram kernels, kept apart from the code. bench/histogram_tuning_bench.cu times the
// alternatives side by side. Measured (H200, CUDA 13.0, uint32 samples in [0, 1000), 2^28 of them,
// the policy below): 256 bins 0.828 ms (CUB 0.616), 4096 bins 1.168 ms (CUB 2.981), all in one bin
// 0.735 ms (CUB 0.552); memcpy of the same bytes 0.509 ms.
namespace lookback::policy {

/// Threads per block; independent 16-byte loads per thread per trip; shared memory for privatised
/// copies of the bins (one copy per warp while they fit, fewer for more bins; when not even one fits,
/// counts go straight to global memory); whether a warp whose samples agree adds them with one atomic.
template <int Threads, int VectorsInFlight, int SharedBudgetBytes, bool WarpAggregation>
struct histogram_config {
  static constexpr int threads = Threads;
  static constexpr int vectors_in_flight = VectorsInFlight;
  static constexpr int shared_budget_bytes = SharedBudgetBytes;
  static constexpr bool warp_aggregation = WarpAggregation;
};

struct histogram : histogram_config<256, 4, 96 * 1024, true> {};

}  // namespace lookback::policy
