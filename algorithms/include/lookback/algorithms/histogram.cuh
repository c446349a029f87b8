#pragma once
// Histograms of samples into even or caller-given bins, and O(1) range counts through a prefix sum of
// the histogram (our scan): the count of samples in bins a..b is prefix[b + 1] - prefix[a].
//
// Same bins as cub::DeviceHistogram::HistogramEven / HistogramRange for the same sample and level
// types (see histogram/bin_mapping.cuh). The histogram is overwritten, not accumulated into. Nothing
// here synchronises the host.
#include <lookback/algorithms/histogram/bin_mapping.cuh>
#include <lookback/algorithms/histogram/histogram_kernels.cuh>
#include <lookback/algorithms/histogram/histogram_policy.cuh>
#include <lookback/primitives/detail/device_limits.cuh>
#include <lookback/primitives/error.cuh>
#include <lookback/primitives/scan.cuh>
#include <lookback/primitives/thread/vector16.cuh>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace lookback {
namespace histogram::detail {

/// The histogram with an explicit tuning policy (the benchmarks compare policies through it).
template <class Policy, class Sample, class Counter, class BinMap>
void run_with_policy(const Sample* d_samples, std::int64_t num_samples, Counter* d_histogram, int num_bins,
                     const BinMap& bin_of, cudaStream_t stream) {
  using policy = Policy;
  lookback::detail::check_item_count(num_samples, "lookback::histogram");
  lookback::detail::check_array(d_samples, num_samples, "lookback::histogram", "d_samples");
  lookback::detail::check_array(d_histogram, num_bins, "lookback::histogram", "d_histogram");
  LOOKBACK_CUDA_TRY(cudaMemsetAsync(d_histogram, 0, static_cast<std::size_t>(num_bins) * sizeof(Counter), stream));
  if (num_samples == 0) return;
  const bool aligned = thread::aligned16(d_samples);
  const std::int64_t per_block_trip = std::int64_t{policy::threads} * policy::vectors_in_flight * thread::vector16<Sample>::size;
  const std::int64_t wanted = (num_samples + per_block_trip - 1) / per_block_trip;

  const int warps = policy::threads / warp::warp_size;
  const auto shared_kernel = device::shared_histogram_kernel<policy, Sample, Counter, BinMap>;
  // The budget within what this device lets a block have (64 KiB on Turing, less than the policy's).
  const int budget =
      std::min(policy::shared_budget_bytes, lookback::detail::shared_memory_limits_of(shared_kernel).dynamic_limit);
  const int copies = std::min(warps, budget / (num_bins * static_cast<int>(sizeof(unsigned))));
  if (copies >= 1) {
    const int shared_bytes = copies * num_bins * static_cast<int>(sizeof(unsigned));
    // resident_blocks also raises the kernel's dynamic shared-memory limit past 48 KiB when needed.
    const int blocks = static_cast<int>(std::min<std::int64_t>(
        wanted, lookback::detail::resident_blocks(shared_kernel, policy::threads, shared_bytes)));
    shared_kernel<<<blocks, policy::threads, shared_bytes, stream>>>(d_samples, num_samples, aligned, bin_of, num_bins,
                                                                     copies, d_histogram);
  } else {
    const auto kernel = device::global_histogram_kernel<policy, Sample, Counter, BinMap>;
    const int blocks = static_cast<int>(
        std::min<std::int64_t>(wanted, lookback::detail::resident_blocks(kernel, policy::threads)));
    kernel<<<blocks, policy::threads, 0, stream>>>(d_samples, num_samples, aligned, bin_of, d_histogram);
  }
  LOOKBACK_CUDA_TRY(cudaGetLastError());
}

template <class Sample, class Counter, class BinMap>
void run(const Sample* d_samples, std::int64_t num_samples, Counter* d_histogram, int num_bins, const BinMap& bin_of,
         cudaStream_t stream) {
  // The bin maps compare integer samples as int64 levels: a uint64 sample past 2^63 would land in a bin.
  static_assert(std::is_same_v<Sample, std::uint8_t> || std::is_same_v<Sample, std::uint16_t> ||
                    std::is_same_v<Sample, std::int32_t> || std::is_same_v<Sample, std::uint32_t> ||
                    std::is_same_v<Sample, float> || std::is_same_v<Sample, double>,
                "histogram samples: uint8, uint16, int32, uint32, float or double");
  run_with_policy<policy::histogram>(d_samples, num_samples, d_histogram, num_bins, bin_of, stream);
}

}  // namespace histogram::detail

/// num_bins equal bins over [lower, upper); samples outside and NaNs are dropped. Counter: unsigned
/// int or unsigned long long. Throws std::invalid_argument for bins outside 1..65536, lower >= upper
/// or a non-finite range.
template <class Sample, class Counter>
void histogram_even(const Sample* d_samples, std::int64_t num_samples, Counter* d_histogram, int num_bins,
                    histogram::level_t<Sample> lower, histogram::level_t<Sample> upper, cudaStream_t stream = nullptr) {
  histogram::detail::run(d_samples, num_samples, d_histogram, num_bins,
                         histogram::even_bins<Sample>::make(num_bins, lower, upper), stream);
}

/// Bins between num_bins + 1 ascending levels in device memory: bin i counts levels[i] <= x <
/// levels[i + 1].
template <class Sample, class Counter>
void histogram_range(const Sample* d_samples, std::int64_t num_samples, Counter* d_histogram, int num_bins,
                     const histogram::level_t<Sample>* d_levels, cudaStream_t stream = nullptr) {
  histogram::check_bins(num_bins);
  lookback::detail::check_array(d_levels, num_samples > 0 ? num_bins + 1 : 0, "lookback::histogram", "d_levels");
  histogram::detail::run(d_samples, num_samples, d_histogram, num_bins,
                         histogram::range_bins<Sample>{d_levels, num_bins + 1}, stream);
}

/// prefix[0] = 0, prefix[i + 1] = histogram[0] + ... + histogram[i]: num_bins + 1 counters, from our
/// inclusive scan. Temporary storage as in CUB (null pointer first).
template <class Counter>
void histogram_prefix(void* d_temp_storage, std::size_t& temp_storage_bytes, const Counter* d_histogram,
                      int num_bins, Counter* d_prefix, cudaStream_t stream = nullptr) {
  if (d_temp_storage != nullptr) {  // a size query may leave the arrays null
    lookback::detail::check_array(d_histogram, num_bins, "lookback::histogram_prefix", "d_histogram");
    lookback::detail::check_array(d_prefix, num_bins + 1, "lookback::histogram_prefix", "d_prefix");
    LOOKBACK_CUDA_TRY(cudaMemsetAsync(d_prefix, 0, sizeof(Counter), stream));
  }
  inclusive_scan(d_temp_storage, temp_storage_bytes, d_histogram, d_prefix + 1, sum{}, num_bins, stream);
}

/// Answers num_queries (a, b) bin ranges at once (int pairs, a <= b, inclusive): counts[q] =
/// prefix[b + 1] - prefix[a], O(1) each; a query outside the bins gets 0 (callers validate first).
template <class Counter>
void range_counts(const Counter* d_prefix, int num_bins, const int* d_queries, std::int64_t num_queries,
                  Counter* d_counts, cudaStream_t stream = nullptr) {
  if (num_queries < 0) throw std::invalid_argument("lookback::range_counts: negative query count");
  if (num_queries == 0) return;
  lookback::detail::check_array(d_prefix, num_bins + 1, "lookback::range_counts", "d_prefix");
  lookback::detail::check_array(d_queries, 2 * num_queries, "lookback::range_counts", "d_queries");
  lookback::detail::check_array(d_counts, num_queries, "lookback::range_counts", "d_counts");
  const int blocks = static_cast<int>(std::min<std::int64_t>((num_queries + 255) / 256, 4096));
  histogram::device::range_count_kernel<<<blocks, 256, 0, stream>>>(d_prefix, num_bins, d_queries, num_queries,
                                                                    d_counts);
  LOOKBACK_CUDA_TRY(cudaGetLastError());
}

}  // namespace lookback
