#pragma once
// Block-wide reduction: warp shuffles, then the first warp reduces the per-warp totals in warp
// order. Only thread 0's result is defined. The storage serves one call (a second needs a
// __syncthreads() first).
#include <lookback/primitives/warp/warp_reduce.cuh>

#include <cstdint>

namespace lookback::block {

template <class T, int Threads>
struct reduce {
  static_assert(Threads % warp::warp_size == 0 && Threads <= 1024, "whole warps, at most 1024 threads");
  static constexpr int warps = Threads / warp::warp_size;

  struct storage {
    T warp_totals[warps];
  };

  template <class Op>
  __device__ static T run(T value, Op op, const T& identity, storage& s) {
    const int lane = warp::lane_id();
    const int warp_index = static_cast<int>(threadIdx.x) / warp::warp_size;
    value = warp::reduce(value, op);
    if (lane == 0) s.warp_totals[warp_index] = value;
    __syncthreads();
    T total = identity;
    if (warp_index == 0) {
      total = warp::reduce(lane < warps ? s.warp_totals[lane] : identity, op);
    }
    return total;
  }

  /// The first `count` values of `d_values` combined in order: each thread folds a run of consecutive
  /// values (a single one while count <= Threads), so that their loads all go out at once, then run()
  /// combines the threads' folds. Only thread 0's result is defined.
  template <class Op>
  __device__ static T first_values(const T* d_values, std::int64_t count, Op op, const T& identity, storage& s) {
    const std::int64_t run_length = (count + Threads - 1) / Threads;
    const std::int64_t begin = threadIdx.x * run_length;
    const std::int64_t end = begin + run_length < count ? begin + run_length : count;
    T folded = identity;
    for (std::int64_t i = begin; i < end; ++i) folded = op(folded, d_values[i]);
    return run(folded, op, identity, s);
  }
};

}  // namespace lookback::block
