#pragma once
// Device-wide reduction: *d_out = init op in[0] op ... op in[n-1], for an associative and commutative
// operator with an identity (the grid-stride fold visits items out of order).
//
// Temporary storage as in CUB (null pointer first to learn the size), or from a stream-ordered
// allocator; the result stays in device memory and nothing synchronises the host, except
// reduce_to_host, which returns the value.
#include <lookback/primitives/allocator.cuh>
#include <lookback/primitives/detail/device_limits.cuh>
#include <lookback/primitives/detail/temp_layout.cuh>
#include <lookback/primitives/device/reduce_kernels.cuh>
#include <lookback/primitives/device_buffer.cuh>
#include <lookback/primitives/error.cuh>
#include <lookback/primitives/policy/reduce_policy.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace lookback {

template <class InputIt, class OutputIt, class T, class Op>
void reduce(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, OutputIt d_out,
            std::int64_t num_items, Op op, T init, cudaStream_t stream = nullptr) {
  using policy = policy::reduce<T>;
  detail::check_item_count(num_items, "lookback::reduce");
  if (d_temp_storage != nullptr) {  // a size query may leave the arrays null
    detail::check_array(d_in, num_items, "lookback::reduce", "d_in");
    detail::check_array(d_out, 1, "lookback::reduce", "d_out");
  }
  const auto partials_kernel = device::reduce_partials_kernel<policy, InputIt, T, Op>;
  const std::int64_t items_per_trip = std::int64_t{policy::threads} * policy::vectors_in_flight * thread::vector16<T>::size;
  const std::int64_t wanted = (num_items + items_per_trip - 1) / items_per_trip;
  int blocks =
      static_cast<int>(std::min<std::int64_t>(wanted, detail::resident_blocks(partials_kernel, policy::threads)));
  // The size a query answers depends on the GPU current then; storage sized on a GPU of fewer SMs
  // still serves here, by as many blocks as it holds partials (the fold strides over the rest).
  if (d_temp_storage != nullptr && blocks > 0)
    blocks = static_cast<int>(
        std::min<std::int64_t>(blocks, std::max<std::int64_t>(1, static_cast<std::int64_t>(temp_storage_bytes / sizeof(T)))));
  const detail::temp_layout layout{static_cast<std::size_t>(blocks) * sizeof(T)};
  if (layout.answer_query(d_temp_storage, temp_storage_bytes, "lookback::reduce")) return;

  T* d_partials = layout.part<T>(d_temp_storage, 0);
  if (blocks > 0) {
    bool aligned = false;
    if constexpr (thread::vectorizable<InputIt, T>) aligned = thread::aligned16(d_in);
    partials_kernel<<<blocks, policy::threads, 0, stream>>>(d_in, num_items, op, aligned, d_partials);
    LOOKBACK_CUDA_TRY(cudaGetLastError());
  }
  device::reduce_final_kernel<policy><<<1, policy::final_threads, 0, stream>>>(d_partials, blocks, d_out, op, init);
  LOOKBACK_CUDA_TRY(cudaGetLastError());
}

template <class InputIt, class OutputIt, class T, class Op, class Allocator = stream_allocator>
void reduce(InputIt d_in, OutputIt d_out, std::int64_t num_items, Op op, T init, cudaStream_t stream = nullptr,
            Allocator alloc = {}) {
  detail::with_temp_storage(alloc, stream, [&](void* d_temp, std::size_t& bytes) {
    reduce(d_temp, bytes, d_in, d_out, num_items, op, init, stream);
  });
}

/// Host convenience: waits for the stream and returns the value.
template <class InputIt, class T, class Op, class Allocator = stream_allocator>
[[nodiscard]] T reduce_to_host(InputIt d_in, std::int64_t num_items, Op op, T init, cudaStream_t stream = nullptr,
                               Allocator alloc = {}) {
  device_buffer<T> d_result(1, stream);
  reduce(d_in, d_result.data(), num_items, op, init, stream, alloc);
  return to_host(d_result).front();
}

}  // namespace lookback
