#pragma once
// Histogram kernels. The fast path privatises the bins in shared memory (several copies per block, so
// that warps rarely contend on one counter), counts every sample there with shared atomics, then adds
// each block's totals to the global histogram. A warp whose samples all fall in one bin adds them with
// one atomic (skewed data would otherwise serialise 32 atomics on one address). When one copy of the
// bins does not fit in shared memory, samples count straight into the global histogram.
#include <lookback/algorithms/histogram/sample_visit.cuh>
#include <lookback/primitives/warp/shuffle.cuh>

#include <cstdint>

namespace lookback::histogram::device {

/// Counts one sample's bin (or nothing for -1) into `counts`, with WarpAggregation adding a warp
/// that agrees with one atomic.
template <bool WarpAggregation, class Counter>
__device__ __forceinline__ void count_bin(Counter* counts, int bin) {
  if constexpr (WarpAggregation) {
    const int first = __shfl_sync(warp::full_mask, bin, 0);
    if (__all_sync(warp::full_mask, bin == first)) {
      if (warp::lane_id() == 0 && first >= 0) atomicAdd(counts + first, Counter{32});
      return;
    }
  }
  if (bin >= 0) atomicAdd(counts + bin, Counter{1});
}

template <class Policy, class Sample, class Counter, class BinMap>
__global__ void __launch_bounds__(Policy::threads)
    shared_histogram_kernel(const Sample* d_samples, std::int64_t n, bool aligned, BinMap bin_of, int num_bins,
                            int copies, Counter* d_histogram) {
  extern __shared__ unsigned shared_counts[];
  for (int i = threadIdx.x; i < copies * num_bins; i += Policy::threads) shared_counts[i] = 0;
  __syncthreads();
  unsigned* mine = shared_counts + (threadIdx.x / warp::warp_size) % copies * num_bins;
  for_each_sample<Policy>(d_samples, n, aligned,
                          [&](Sample x, bool valid) { count_bin<Policy::warp_aggregation>(mine, valid ? bin_of(x) : -1); });
  __syncthreads();
  for (int bin = threadIdx.x; bin < num_bins; bin += Policy::threads) {
    unsigned total = 0;
    for (int c = 0; c < copies; ++c) total += shared_counts[c * num_bins + bin];
    if (total != 0) atomicAdd(d_histogram + bin, static_cast<Counter>(total));
  }
}

template <class Policy, class Sample, class Counter, class BinMap>
__global__ void __launch_bounds__(Policy::threads)
    global_histogram_kernel(const Sample* d_samples, std::int64_t n, bool aligned, BinMap bin_of,
                            Counter* d_histogram) {
  for_each_sample<Policy>(d_samples, n, aligned,
                          [&](Sample x, bool valid) { count_bin<Policy::warp_aggregation>(d_histogram, valid ? bin_of(x) : -1); });
}

/// counts[q] = prefix[b + 1] - prefix[a] for query q = (a, b); 0 for a query outside the bins.
template <class Counter>
__global__ void range_count_kernel(const Counter* d_prefix, int num_bins, const int* d_queries,
                                   std::int64_t num_queries, Counter* d_counts) {
  for (std::int64_t q = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; q < num_queries;
       q += std::int64_t{gridDim.x} * blockDim.x) {
    const int a = d_queries[2 * q];
    const int b = d_queries[2 * q + 1];
    d_counts[q] = (0 <= a && a <= b && b < num_bins) ? d_prefix[b + 1] - d_prefix[a] : Counter{0};
  }
}

}  // namespace lookback::histogram::device
