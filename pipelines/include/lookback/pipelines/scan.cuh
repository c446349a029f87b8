#pragma once
// Exclusive and inclusive scans of a source of any size into a sink, chunk by chunk: each chunk's
// look-back scan starts from the running total of the chunks before it, read from device memory
// (carried<T>, primitives/scan_carry.cuh) and left there for the next, two slots taking turns. The
// deterministic scans cut chunks at window multiples, so they give one deterministic scan's bits.
#include <lookback/pipelines/chunk_pipeline.hpp>
#include <lookback/pipelines/stream_options.hpp>
#include <lookback/primitives/deterministic_scan.cuh>
#include <lookback/primitives/operators.cuh>
#include <lookback/primitives/scan.cuh>

#include <algorithm>
#include <cstdint>

namespace lookback::pipelines {

/// One chunk of lookback's scan, CUB-style (a null d_temp asks the size); `Mode...`: nothing, or
/// deterministic_t (where a null carry.d_prefix starts an inclusive scan's first chunk from nothing).
/// Callers may pass their own step with this signature (the command's --verify runs CUB beside it).
template <bool Exclusive, class Op, class... Mode>
struct lookback_scan_chunk {
  Op op;
  template <class T>
  void operator()(void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out, carried<T> carry, std::int64_t n,
                  cudaStream_t stream) const {
    if constexpr (Exclusive)
      lookback::exclusive_scan(Mode{}..., d_temp, temp_bytes, d_in, d_out, carry, op, n, stream);
    else
      lookback::inclusive_scan(Mode{}..., d_temp, temp_bytes, d_in, d_out, carry, op, n, stream);
  }
};
template <bool Exclusive, class Op>
using deterministic_scan_chunk = lookback_scan_chunk<Exclusive, Op, deterministic_t>;

/// The streamed scan with a caller's chunk step (lookback_scan_chunk's signature). `first_from_nothing`:
/// the first chunk gets a null carry.d_prefix rather than init (a deterministic inclusive scan, whose
/// first item is itself, never init op item).
template <bool Exclusive, class T, class Op, class Step>
chunk_plan scan_with(source& in, sink& out, T init, Op op, const stream_options& options, Step step,
                     bool first_from_nothing = false) {
  check_item_bytes(in, sizeof(T), "lookback::pipelines::scan", "the input's");
  const std::int64_t n = in.size();
  chunk_costs costs;
  costs.device_per_item = 2 * sizeof(T);
  costs.host_per_item = (in.host_items() == nullptr ? sizeof(T) : 0) + (out.host_items() == nullptr ? sizeof(T) : 0);
  costs.device_fixed = 2 * sizeof(T);
  costs.temp_bytes = [&](std::int64_t items) {
    std::size_t bytes = 0;
    step(nullptr, bytes, static_cast<const T*>(nullptr), static_cast<T*>(nullptr), carried<T>{nullptr, nullptr}, items,
         cudaStream_t{});
    return bytes;
  };
  const chunk_plan plan = detail::plan_for(n, sizeof(T), costs, options);
  if (plan.chunks == 0) return plan;

  const cuda_stream setup;
  std::size_t temp_bytes = costs.temp_bytes(plan.chunk_items);
  device_buffer<std::byte> d_temp(temp_bytes, setup);
  device_buffer<T> d_carry(2, setup);
  LOOKBACK_CUDA_TRY(cudaMemcpyAsync(d_carry.data(), &init, sizeof(T), cudaMemcpyHostToDevice, setup));
  LOOKBACK_CUDA_TRY(cudaStreamSynchronize(setup));

  chunk_job job;
  job.inputs = {&in};
  job.output = &out;
  job.out_item_bytes = sizeof(T);
  job.compute = [&](const chunk& c, cudaStream_t stream) {
    T* carry = d_carry.data();
    const carried<T> link{first_from_nothing && c.index == 0 ? nullptr : carry + c.index % 2, carry + (c.index + 1) % 2};
    std::size_t bytes = temp_bytes;
    step(d_temp.data(), bytes, static_cast<const T*>(c.d_in[0]), static_cast<T*>(c.d_out), link, c.count, stream);
  };
  if (options.progress) job.progress = [&](std::int64_t done) { options.progress(done, n); };
  run_chunks(job, plan);
  return plan;
}

/// out[i] = init op in[0] op ... op in[i-1], for a source and sink of any size; returns the plan it ran.
template <class T, class Op>
chunk_plan exclusive_scan(source& in, sink& out, T init, Op op, const stream_options& options = {}) {
  return scan_with<true>(in, out, init, op, options, lookback_scan_chunk<true, Op>{op});
}

/// out[i] = in[0] op ... op in[i].
template <class T, class Op>
chunk_plan inclusive_scan(source& in, sink& out, Op op, const stream_options& options = {}) {
  return scan_with<false>(in, out, neutral_of<T>(op), op, options, lookback_scan_chunk<false, Op>{op});
}

/// The deterministic scans (primitives/deterministic_scan.cuh) of a source of any size: the bits of
/// one deterministic scan of the whole.
template <class T, class Op>
chunk_plan exclusive_scan(deterministic_t, source& in, sink& out, T init, Op op, stream_options options = {}) {
  options.plan.chunk_multiple = std::max(options.plan.chunk_multiple, policy::deterministic_granule::window_items);
  return scan_with<true>(in, out, init, op, options, deterministic_scan_chunk<true, Op>{op});
}
template <class T, class Op>
chunk_plan inclusive_scan(deterministic_t, source& in, sink& out, Op op, stream_options options = {}) {
  options.plan.chunk_multiple = std::max(options.plan.chunk_multiple, policy::deterministic_granule::window_items);
  return scan_with<false>(in, out, neutral_of<T>(op), op, options, deterministic_scan_chunk<false, Op>{op}, true);
}

}  // namespace lookback::pipelines
