#pragma once
// Two-kernel reduction: a device-filling grid folds the input into one partial per block, then one
// block folds the partials in block order. The grid depends only on the device and n, and no float
// atomics are used, so floating-point results repeat run to run on the same GPU.
#include <lookback/primitives/block/block_reduce.cuh>
#include <lookback/primitives/operators.cuh>
#include <lookback/primitives/thread/vector16.cuh>

#include <cstdint>
#include <iterator>
#include <type_traits>

namespace lookback::device {

template <class Policy, class InputIt, class T, class Op>
__global__ void __launch_bounds__(Policy::threads)
    reduce_partials_kernel(InputIt d_in, std::int64_t n, Op op, bool aligned, T* d_partials) {
  using block_reduce = block::reduce<T, Policy::threads>;
  __shared__ typename block_reduce::storage storage;
  constexpr int unroll = Policy::vectors_in_flight;
  const T identity = neutral_of<T>(op);
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * Policy::threads;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * Policy::threads + threadIdx.x;

  T acc = identity;
  std::int64_t scalar_begin = 0;
  if constexpr (thread::vectorizable<InputIt, T>) {
    if (aligned) {
      using vec = thread::vector16<T>;
      const auto* d_vec = reinterpret_cast<const vec*>(d_in);
      const std::int64_t vectors = n / vec::size;
      std::int64_t i = first;
      for (; i + (unroll - 1) * stride < vectors; i += unroll * stride) {
        vec v[unroll];
#pragma unroll
        for (int u = 0; u < unroll; ++u) v[u] = d_vec[i + u * stride];
#pragma unroll
        for (int u = 0; u < unroll; ++u)
#pragma unroll
          for (int e = 0; e < vec::size; ++e) acc = op(acc, v[u].items[e]);
      }
      for (; i < vectors; i += stride) {
        const vec v = d_vec[i];
#pragma unroll
        for (int e = 0; e < vec::size; ++e) acc = op(acc, v.items[e]);
      }
      scalar_begin = vectors * vec::size;
    }
  }
  for (std::int64_t i = scalar_begin + first; i < n; i += stride) acc = op(acc, static_cast<T>(d_in[i]));

  const T total = block_reduce::run(acc, op, identity, storage);
  if (threadIdx.x == 0) d_partials[blockIdx.x] = total;
}

template <class Policy, class OutputIt, class T, class Op>
__global__ void __launch_bounds__(Policy::final_threads)
    reduce_final_kernel(const T* d_partials, int count, OutputIt d_out, Op op, T init) {
  using block_reduce = block::reduce<T, Policy::final_threads>;
  __shared__ typename block_reduce::storage storage;
  const T identity = neutral_of<T>(op);
  T acc = identity;
  for (int i = static_cast<int>(threadIdx.x); i < count; i += Policy::final_threads) acc = op(acc, d_partials[i]);
  const T total = block_reduce::run(acc, op, identity, storage);
  if (threadIdx.x == 0) *d_out = op(init, total);
}

}  // namespace lookback::device
