#pragma once
// Stream compaction of a source of any size into a sink: each chunk's kept items come back as soon as
// the chunk is done and are appended after everything kept before them. The count travels to the
// host through pinned memory on the compute stream, so the writer knows how much to copy back
// without a synchronisation of its own.
#include <lookback/algorithms/select.cuh>
#include <lookback/pipelines/chunk_pipeline.hpp>
#include <lookback/pipelines/stream_options.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace lookback::pipelines {

/// One chunk of lookback's compaction, CUB-style; d_flags is null for a predicate.
template <class Pred>
struct lookback_select_chunk {
  Pred pred;
  template <class T>
  void operator()(void* d_temp, std::size_t& temp_bytes, const T* d_in, const std::uint8_t* d_flags, T* d_out,
                  std::int64_t* d_count, std::int64_t n, cudaStream_t stream) const {
    lookback::select_if(d_temp, temp_bytes, d_in, d_out, d_count, n, pred, stream);
  }
};
struct lookback_flagged_chunk {
  template <class T>
  void operator()(void* d_temp, std::size_t& temp_bytes, const T* d_in, const std::uint8_t* d_flags, T* d_out,
                  std::int64_t* d_count, std::int64_t n, cudaStream_t stream) const {
    lookback::select_flagged(d_temp, temp_bytes, d_in, d_flags, d_out, d_count, n, stream);
  }
};

/// The streamed compaction with a caller's chunk step (lookback_select_chunk's signature): values,
/// and one uint8 flag per value or null; returns the number kept.
template <class T, class Step>
std::int64_t select_with(source& values, source* flags, sink& out, const stream_options& options, Step step,
                           chunk_plan* plan_out) {
  const std::int64_t n = values.size();
  // The chunks cut every input alike: flags must be one byte a value, as many as the values.
  check_item_bytes(values, sizeof(T), "lookback::pipelines::select", "the values");
  if (flags != nullptr && (flags->size() != n || flags->item_bytes() != 1))
    throw std::invalid_argument("lookback::pipelines::select_flagged: " + std::to_string(flags->size()) + " flags of " +
                                std::to_string(flags->item_bytes()) + " bytes for " + std::to_string(n) +
                                " values; one uint8 flag a value");
  chunk_costs costs;
  costs.device_per_item = 2 * sizeof(T) + (flags != nullptr ? 1 : 0);
  costs.host_per_item = (values.host_items() == nullptr ? sizeof(T) : 0) +
                        (flags != nullptr && flags->host_items() == nullptr ? 1 : 0) +
                        (out.host_items() == nullptr ? sizeof(T) : 0);
  costs.device_fixed = 4 * sizeof(std::int64_t);
  costs.host_fixed = 4 * sizeof(std::int64_t);
  costs.temp_bytes = [&](std::int64_t items) {
    std::size_t bytes = 0;
    step(nullptr, bytes, static_cast<const T*>(nullptr), static_cast<const std::uint8_t*>(nullptr),
         static_cast<T*>(nullptr), static_cast<std::int64_t*>(nullptr), items, cudaStream_t{});
    return bytes;
  };
  const chunk_plan plan = detail::plan_for(n, sizeof(T), costs, options);
  if (plan_out != nullptr) *plan_out = plan;
  if (plan.chunks == 0) return 0;

  const cuda_stream setup;
  std::size_t temp_bytes = costs.temp_bytes(plan.chunk_items);
  device_buffer<std::byte> d_temp(temp_bytes, setup);
  device_buffer<std::int64_t> d_counts(static_cast<std::size_t>(plan.depth), setup);
  pinned_buffer h_counts(static_cast<std::size_t>(plan.depth) * sizeof(std::int64_t));
  LOOKBACK_CUDA_TRY(cudaStreamSynchronize(setup));
  const auto count_slot = [&](int slot) { return reinterpret_cast<std::int64_t*>(h_counts.data()) + slot; };

  std::int64_t kept = 0;
  chunk_job job;
  job.inputs = {&values};
  if (flags != nullptr) job.inputs.push_back(flags);
  job.output = &out;
  job.out_item_bytes = sizeof(T);
  job.compute = [&](const chunk& c, cudaStream_t stream) {
    std::size_t bytes = temp_bytes;
    std::int64_t* d_count = d_counts.data() + c.slot;
    step(d_temp.data(), bytes, static_cast<const T*>(c.d_in[0]),
         flags != nullptr ? static_cast<const std::uint8_t*>(c.d_in[1]) : nullptr, static_cast<T*>(c.d_out), d_count,
         c.count, stream);
    LOOKBACK_CUDA_TRY(cudaMemcpyAsync(count_slot(c.slot), d_count, sizeof(std::int64_t), cudaMemcpyDeviceToHost, stream));
  };
  job.output_items = [&](const chunk& c) {
    const std::int64_t k = *count_slot(c.slot);
    if (k < 0 || k > c.count)
      throw stream_error(stream_error::kind::device, "compaction counted " + std::to_string(k) + " kept of " +
                                                         std::to_string(c.count) + " items");
    kept += k;
    return k;
  };
  if (options.progress) job.progress = [&](std::int64_t done) { options.progress(done, n); };
  run_chunks(job, plan);
  return kept;
}

/// The items of `in` for which pred is true, in order, into `out`; returns how many.
template <class T, class Pred>
std::int64_t select_if(source& in, sink& out, Pred pred, const stream_options& options = {},
                       chunk_plan* plan = nullptr) {
  return select_with<T>(in, nullptr, out, options, lookback_select_chunk<Pred>{pred}, plan);
}

/// The items whose flag (one uint8 per item, from `flags`) is nonzero, in order; returns how many.
template <class T>
std::int64_t select_flagged(source& in, source& flags, sink& out, const stream_options& options = {},
                            chunk_plan* plan = nullptr) {
  return select_with<T>(in, &flags, out, options, lookback_flagged_chunk{}, plan);
}

}  // namespace lookback::pipelines
