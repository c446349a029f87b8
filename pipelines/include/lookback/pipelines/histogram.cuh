#pragma once
// Even histogram of a source of any size: each chunk's counts go to a scratch set and are added into
// the one running set on the device; the host reads the counters once, at the end.
#include <lookback/algorithms/histogram.cuh>
#include <lookback/pipelines/chunk_pipeline.hpp>
#include <lookback/pipelines/device/fold_kernels.cuh>
#include <lookback/pipelines/stream_options.hpp>

#include <cstdint>

namespace lookback::pipelines {

/// One chunk of lookback's even histogram into d_counts (overwritten), CUB-style: it needs no
/// temporary storage.
template <class Sample>
struct lookback_histogram_chunk {
  histogram::level_t<Sample> lower, upper;
  template <class Counter>
  void operator()(void* d_temp, std::size_t& temp_bytes, const Sample* d_samples, Counter* d_counts, int num_bins,
                  std::int64_t n, cudaStream_t stream) const {
    if (d_temp == nullptr) {
      temp_bytes = 1;  // none needed, but a real call must not look like a query
      return;
    }
    lookback::histogram_even(d_samples, n, d_counts, num_bins, lower, upper, stream);
  }
};

/// The streamed histogram with a caller's chunk step (lookback_histogram_chunk's signature) into
/// h_counts (host memory, num_bins counters).
template <class Sample, class Counter, class Step>
chunk_plan histogram_with(source& samples, Counter* h_counts, int num_bins, const stream_options& options, Step step) {
  histogram::check_bins(num_bins);
  check_item_bytes(samples, sizeof(Sample), "lookback::pipelines::histogram", "the samples");
  const std::int64_t n = samples.size();
  const std::size_t bins = static_cast<std::size_t>(num_bins);
  chunk_costs costs;
  costs.device_per_item = sizeof(Sample);
  costs.host_per_item = samples.host_items() == nullptr ? sizeof(Sample) : 0;
  costs.device_fixed = 2 * bins * sizeof(Counter);
  costs.temp_bytes = [&](std::int64_t items) {
    std::size_t bytes = 0;
    step(nullptr, bytes, static_cast<const Sample*>(nullptr), static_cast<Counter*>(nullptr), num_bins, items,
         cudaStream_t{});
    return bytes;
  };
  const chunk_plan plan = detail::plan_for(n, sizeof(Sample), costs, options);

  const cuda_stream setup;
  std::size_t temp_bytes = costs.temp_bytes(plan.chunk_items);
  device_buffer<std::byte> d_temp(temp_bytes, setup);
  device_buffer<Counter> d_counts(2 * bins, setup);  // the running counters, then the chunk's
  LOOKBACK_CUDA_TRY(cudaMemsetAsync(d_counts.data(), 0, bins * sizeof(Counter), setup));
  LOOKBACK_CUDA_TRY(cudaStreamSynchronize(setup));

  chunk_job job;
  job.inputs = {&samples};
  job.compute = [&](const chunk& c, cudaStream_t stream) {
    std::size_t bytes = temp_bytes;
    Counter* chunk_counts = d_counts.data() + bins;
    step(d_temp.data(), bytes, static_cast<const Sample*>(c.d_in[0]), chunk_counts, num_bins, c.count, stream);
    device::add_counts_kernel<<<(num_bins + 255) / 256, 256, 0, stream>>>(d_counts.data(), chunk_counts, num_bins);
    LOOKBACK_CUDA_TRY(cudaGetLastError());
  };
  if (options.progress) job.progress = [&](std::int64_t done) { options.progress(done, n); };
  run_chunks(job, plan);
  LOOKBACK_CUDA_TRY(cudaMemcpyAsync(h_counts, d_counts.data(), bins * sizeof(Counter), cudaMemcpyDeviceToHost, setup));
  LOOKBACK_CUDA_TRY(cudaStreamSynchronize(setup));
  return plan;
}

/// h_counts[b] (host memory, num_bins counters) = the samples in bin b of num_bins equal bins over
/// [lower, upper), as lookback::histogram_even counts them.
template <class Sample, class Counter>
chunk_plan histogram_even(source& samples, Counter* h_counts, int num_bins, histogram::level_t<Sample> lower,
                          histogram::level_t<Sample> upper, const stream_options& options = {}) {
  return histogram_with<Sample>(samples, h_counts, num_bins, options, lookback_histogram_chunk<Sample>{lower, upper});
}

}  // namespace lookback::pipelines
