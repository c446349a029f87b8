#pragma once
// The carried state of a streamed run, combined on the device so the host never reads it between
// chunks: a reduction's running value and a histogram's running counters.
#include <cstdint>

namespace lookback::pipelines::device {

/// *d_partial = *d_acc op *d_partial: the running value, then the chunk's partial, in chunk order (so
/// non-commutative operators fold correctly too).
template <class T, class Op>
__global__ void fold_value_kernel(const T* d_acc, T* d_partial, Op op) {
  *d_partial = op(*d_acc, *d_partial);
}

/// d_total[b] += d_chunk[b]
template <class Counter>
__global__ void add_counts_kernel(Counter* d_total, const Counter* d_chunk, int num_bins) {
  for (int b = blockIdx.x * blockDim.x + threadIdx.x; b < num_bins; b += gridDim.x * blockDim.x) d_total[b] += d_chunk[b];
}

}  // namespace lookback::pipelines::device
