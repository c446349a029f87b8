#pragma once
// Block-wide reduction: warp shuffles, then the first warp reduces the per-warp totals in warp
// order. Only thread 0's result is defined. The storage serves one call (a second needs a
// __syncthreads() first).
#include <lookback/primitives/warp/warp_reduce.cuh>

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
};

}  // namespace lookback::block
