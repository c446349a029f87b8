#pragma once
// Reduction of a source of any size: each chunk reduces to a partial on the device, folded into the
// running value there in chunk order; the host reads the value once, at the end.
#include <lookback/pipelines/chunk_pipeline.hpp>
#include <lookback/pipelines/device/fold_kernels.cuh>
#include <lookback/pipelines/stream_options.hpp>
#include <lookback/primitives/operators.cuh>
#include <lookback/primitives/reduce.cuh>

#include <cstdint>

namespace lookback::pipelines {

/// One chunk of lookback's reduction, CUB-style, into *d_partial.
template <class Op>
struct lookback_reduce_chunk {
  Op op;
  template <class T>
  void operator()(void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_partial, std::int64_t n,
                  cudaStream_t stream) const {
    lookback::reduce(d_temp, temp_bytes, d_in, d_partial, n, op, identity_of<T>(op), stream);
  }
};

/// The streamed reduction with a caller's chunk step (lookback_reduce_chunk's signature); `plan_out`,
/// when given, receives the plan.
template <class T, class Op, class Step>
T reduce_with(source& in, Op op, T init, const stream_options& options, Step step, chunk_plan* plan_out = nullptr) {
  const std::int64_t n = in.size();
  chunk_costs costs;
  costs.device_per_item = sizeof(T);
  costs.host_per_item = in.host_items() == nullptr ? sizeof(T) : 0;
  costs.device_fixed = 2 * sizeof(T);
  costs.temp_bytes = [&](std::int64_t items) {
    std::size_t bytes = 0;
    step(nullptr, bytes, static_cast<const T*>(nullptr), static_cast<T*>(nullptr), items, cudaStream_t{});
    return bytes;
  };
  const chunk_plan plan = detail::plan_for(n, sizeof(T), costs, options);
  if (plan_out != nullptr) *plan_out = plan;
  if (plan.chunks == 0) return init;

  const cuda_stream setup;
  std::size_t temp_bytes = costs.temp_bytes(plan.chunk_items);
  device_buffer<std::byte> d_temp(temp_bytes, setup);
  device_buffer<T> d_values(2, setup);  // the running value, then the chunk's partial
  LOOKBACK_CUDA_TRY(cudaMemcpyAsync(d_values.data(), &init, sizeof(T), cudaMemcpyHostToDevice, setup));
  LOOKBACK_CUDA_TRY(cudaStreamSynchronize(setup));

  chunk_job job;
  job.inputs = {&in};
  job.compute = [&](const chunk& c, cudaStream_t stream) {
    std::size_t bytes = temp_bytes;
    step(d_temp.data(), bytes, static_cast<const T*>(c.d_in[0]), d_values.data() + 1, c.count, stream);
    device::fold_value_kernel<<<1, 1, 0, stream>>>(d_values.data(), d_values.data() + 1, op);
    LOOKBACK_CUDA_TRY(cudaGetLastError());
  };
  if (options.progress) job.progress = [&](std::int64_t done) { options.progress(done, n); };
  run_chunks(job, plan);
  T result{};
  LOOKBACK_CUDA_TRY(cudaMemcpyAsync(&result, d_values.data(), sizeof(T), cudaMemcpyDeviceToHost, setup));
  LOOKBACK_CUDA_TRY(cudaStreamSynchronize(setup));
  return result;
}

/// init op in[0] op ... op in[n-1], chunk partials combined in order.
template <class T, class Op>
T reduce(source& in, Op op, T init, const stream_options& options = {}, chunk_plan* plan = nullptr) {
  return reduce_with(in, op, init, options, lookback_reduce_chunk<Op>{op}, plan);
}

}  // namespace lookback::pipelines
