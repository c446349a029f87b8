#pragma once
// Butterfly reduction over a full warp. Each step combines with the partner in lane order, so the
// result is the ordered reduction lane 0 .. lane 31 and every lane receives it.
#include <lookback/primitives/warp/shuffle.cuh>

namespace lookback::warp {

template <class T, class Op>
__device__ __forceinline__ T reduce(T value, Op op) {
  const int lane = lane_id();
#pragma unroll
  for (int offset = 1; offset < warp_size; offset <<= 1) {
    const T other = shfl_xor(value, offset);
    value = (lane & offset) ? op(other, value) : op(value, other);
  }
  return value;
}

}  // namespace lookback::warp
