#pragma once
// Reduction of a source of any size: each chunk reduces to a partial on the device, folded into the
// running value there in chunk order; the host reads the value once, at the end. The deterministic
// reduction instead starts each chunk from the running value (chunks at window multiples), so the
// result is one deterministic reduction's bits.
#include <lookback/pipelines/chunk_pipeline.hpp>
#include <lookback/pipelines/device/fold_kernels.cuh>
#include <lookback/pipelines/stream_options.hpp>
#include <lookback/primitives/deterministic_scan.cuh>
#include <lookback/primitives/operators.cuh>
#include <lookback/primitives/reduce.cuh>
#include <lookback/primitives/scan_carry.cuh>

#include <algorithm>
#include <cstdint>

namespace lookback::pipelines {

/// One chunk of lookback's reduction, CUB-style, into *d_partial.
template <class Op>
struct lookback_reduce_chunk {
  Op op;
  template <class T>
  void operator()(void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_partial, std::int64_t n,
                  cudaStream_t stream) const {
    lookback::reduce(d_temp, temp_bytes, d_in, d_partial, n, op, neutral_of<T>(op), stream);
  }
};

/// One chunk of the deterministic reduction, from the running value (carry.d_prefix) to the next
/// (carry.d_total).
template <class Op>
struct deterministic_reduce_chunk {
  Op op;
  template <class T>
  void operator()(void* d_temp, std::size_t& temp_bytes, const T* d_in, carried<T> carry, std::int64_t n,
                  cudaStream_t stream) const {
    lookback::reduce(deterministic, d_temp, temp_bytes, d_in, carry, n, op, stream);
  }
};

/// The streamed reduction with a carried chunk step (deterministic_reduce_chunk's signature): each
/// chunk reads the running value from one slot and leaves the next in the other.
template <class T, class Step>
T reduce_carried_with(source& in, T init, const stream_options& options, Step step, chunk_plan* plan_out = nullptr) {
  check_item_bytes(in, sizeof(T), "lookback::pipelines::reduce", "the input's");
  const std::int64_t n = in.size();
  chunk_costs costs;
  costs.device_per_item = sizeof(T);
  costs.host_per_item = in.host_items() == nullptr ? sizeof(T) : 0;
  costs.device_fixed = 2 * sizeof(T);
  costs.temp_bytes = [&](std::int64_t items) {
    std::size_t bytes = 0;
    step(nullptr, bytes, static_cast<const T*>(nullptr), carried<T>{nullptr, nullptr}, items, cudaStream_t{});
    return bytes;
  };
  const chunk_plan plan = detail::plan_for(n, sizeof(T), costs, options);
  if (plan_out != nullptr) *plan_out = plan;
  if (plan.chunks == 0) return init;

  const cuda_stream setup;
  std::size_t temp_bytes = costs.temp_bytes(plan.chunk_items);
  device_buffer<std::byte> d_temp(temp_bytes, setup);
  device_buffer<T> d_values(2, setup);  // the running value, taking turns between the two slots
  LOOKBACK_CUDA_TRY(cudaMemcpyAsync(d_values.data(), &init, sizeof(T), cudaMemcpyHostToDevice, setup));
  LOOKBACK_CUDA_TRY(cudaStreamSynchronize(setup));

  chunk_job job;
  job.inputs = {&in};
  job.compute = [&](const chunk& c, cudaStream_t stream) {
    std::size_t bytes = temp_bytes;
    const carried<T> link{d_values.data() + c.index % 2, d_values.data() + (c.index + 1) % 2};
    step(d_temp.data(), bytes, static_cast<const T*>(c.d_in[0]), link, c.count, stream);
  };
  if (options.progress) job.progress = [&](std::int64_t done) { options.progress(done, n); };
  run_chunks(job, plan);
  T result{};
  LOOKBACK_CUDA_TRY(cudaMemcpyAsync(&result, d_values.data() + plan.chunks % 2, sizeof(T), cudaMemcpyDeviceToHost, setup));
  LOOKBACK_CUDA_TRY(cudaStreamSynchronize(setup));
  return result;
}

/// The streamed reduction with a caller's chunk step (lookback_reduce_chunk's signature); `plan_out`,
/// when given, receives the plan. Each chunk's partial lands in the next slot, where the running
/// value folds it in.
template <class T, class Op, class Step>
T reduce_with(source& in, Op op, T init, const stream_options& options, Step step, chunk_plan* plan_out = nullptr) {
  const auto folded = [&](void* d_temp, std::size_t& temp_bytes, const T* d_in, carried<T> link, std::int64_t n,
                          cudaStream_t stream) {
    step(d_temp, temp_bytes, d_in, link.d_total, n, stream);
    if (d_temp == nullptr) return;
    device::fold_value_kernel<<<1, 1, 0, stream>>>(link.d_prefix, link.d_total, op);
    LOOKBACK_CUDA_TRY(cudaGetLastError());
  };
  return reduce_carried_with(in, init, options, folded, plan_out);
}

/// init op in[0] op ... op in[n-1], chunk partials combined in order.
template <class T, class Op>
T reduce(source& in, Op op, T init, const stream_options& options = {}, chunk_plan* plan = nullptr) {
  return reduce_with(in, op, init, options, lookback_reduce_chunk<Op>{op}, plan);
}

/// The deterministic reduction (primitives/deterministic_scan.cuh) of a source of any size: the bits
/// of one lookback::reduce(deterministic, ...) of the whole.
template <class T, class Op>
T reduce(deterministic_t, source& in, Op op, T init, stream_options options = {}, chunk_plan* plan = nullptr) {
  options.plan.chunk_multiple = std::max(options.plan.chunk_multiple, policy::deterministic_granule::window_items);
  return reduce_carried_with(in, init, options, deterministic_reduce_chunk<Op>{op}, plan);
}

}  // namespace lookback::pipelines
