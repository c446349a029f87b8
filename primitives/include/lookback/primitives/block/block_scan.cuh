#pragma once
// Block-wide exclusive scan of one value per thread: warp scans, then the first warp scans the warp
// totals. Every thread receives its exclusive prefix and the block total. The storage serves one call:
// a second call on it needs a __syncthreads() first, or fast threads overwrite what slow ones read.
#include <lookback/primitives/warp/warp_scan.cuh>

namespace lookback::block {

template <class T, int Threads>
struct scan {
  static_assert(Threads % warp::warp_size == 0 && Threads <= 1024, "whole warps, at most 1024 threads");
  static constexpr int warps = Threads / warp::warp_size;

  struct storage {
    T warp_prefix[warps];
    T total;
  };

  template <class Op>
  __device__ static T exclusive(const T& value, Op op, const T& identity, T& block_total, storage& s) {
    const int lane = warp::lane_id();
    const int warp_index = static_cast<int>(threadIdx.x) / warp::warp_size;
    const T inclusive = warp::inclusive_scan(value, op);
    const T exclusive_in_warp = warp::exclusive_from_inclusive<T, Op>(inclusive, identity);
    if (lane == warp::warp_size - 1) s.warp_prefix[warp_index] = inclusive;
    __syncthreads();
    if (warp_index == 0) {
      const T total = lane < warps ? s.warp_prefix[lane] : identity;
      const T scanned = warp::inclusive_scan(total, op);
      const T exclusive = warp::exclusive_from_inclusive<T, Op>(scanned, identity);
      if (lane < warps) s.warp_prefix[lane] = exclusive;
      if (lane == warps - 1) s.total = scanned;
    }
    __syncthreads();
    block_total = s.total;
    return op(s.warp_prefix[warp_index], exclusive_in_warp);
  }
};

}  // namespace lookback::block
