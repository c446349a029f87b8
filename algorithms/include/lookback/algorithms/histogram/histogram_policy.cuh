#pragma once
// Tuning of the histogram kernels, kept apart from the code. bench/histogram_tuning_bench.cu times the
// alternatives side by side.
//
// Measured on an H100 (CUDA 13.0), uint32 samples in [0, 1000), 2^28 of them, 256 bins, uniform / all
// in one bin; memcpy of the same bytes 0.720 ms, CUB 0.620 / 0.559 ms:
//   shared atomics, 256 threads, 4 vectors, a copy per warp, warp vote  0.729 / 0.762 ms
//   the same without the vote                                          0.647 / 0.649 ms
//   one copy per block, with the vote                                   0.733 / 0.763 ms
//   512 threads, 16 copies, with the vote                               0.696 / 0.726 ms
// The vote (shuffle and all-vote per sample) costs more on uniform data than it saves on skewed data.
// Nsight Compute put the kernel at 3.1 instructions per cycle, 76% of issue slots: about 60
// instructions per sample, most of them the bin arithmetic, hence its division-free form.
// Tried and dropped: 16-bit counters private to each lane (a column per lane, so no atomics and no
// bank conflicts) ran 1.11 ms at 128 threads x 4 vectors, 1.13 at 64 x 8, 1.57 at 256 x 4: their 64
// KiB per 4 warps left 12 warps per SM, and each sample's shared load-add-store waits on the last.
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

struct histogram : histogram_config<256, 4, 96 * 1024, false> {};

}  // namespace lookback::policy
