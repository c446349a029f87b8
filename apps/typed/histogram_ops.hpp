#pragma once
// Histograms for run-time sample and counter dtypes, ours and CUB's (each instantiation compiled
// once, in histogram_lookback.cu and histogram_cub.cu), plus the CPU reference.
#include "io/dtype.hpp"
#include "typed/typed_ops.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace lookback::typed {

/// Sample dtypes: uint8, uint16, int32, uint32, float32, float64. Counters: uint32, uint64.
bool is_histogram_sample(io::dtype type);
std::string histogram_sample_list();
bool is_histogram_counter(io::dtype type);

struct histogram_spec {
  io::dtype sample = io::dtype::uint32;
  io::dtype counter = io::dtype::uint64;
  int num_bins = 256;
  double lower = 0;  // converted to the sample's level type: the sample type for floats, int64 for integers
  double upper = 256;
};

/// Why a bin count is refused ("--bins must be between 1 and 65536, not 0"), or empty.
std::string bins_problem(int num_bins);

/// Why `spec` is not a valid even histogram for its sample type (bins, range order and finiteness,
/// integral limits for integer samples), or empty when it is.
std::string histogram_spec_problem(const histogram_spec& spec);

/// CUB-style temporary storage (null d_temp asks the size; lookback's needs none but reports one
/// byte, as CUB does, so that the real call never looks like a query).
void histogram_even(implementation impl, const histogram_spec& spec, void* d_temp, std::size_t& temp_bytes,
                    const void* d_samples, std::int64_t n, void* d_histogram, cudaStream_t stream);
void histogram_even_cpu(const histogram_spec& spec, const void* samples, std::int64_t n, void* histogram);

/// counts[q] for (a, b) pairs through the histogram's prefix sum (our scan), on the device.
void range_counts_gpu(io::dtype counter, const void* d_histogram, int num_bins, const int* d_queries,
                      std::int64_t num_queries, void* d_counts, cudaStream_t stream);
/// The same on the CPU, from a host histogram.
std::vector<std::uint64_t> range_counts_cpu(io::dtype counter, const void* histogram, int num_bins,
                                            const std::vector<int>& queries);

}  // namespace lookback::typed
