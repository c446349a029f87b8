#pragma once
// Kogge-Stone inclusive scan over a full warp through register shuffles (log2(32) steps, no
// shared memory, no barriers).
#include <lookback/primitives/warp/shuffle.cuh>

namespace lookback::warp {

template <class T, class Op>
__device__ __forceinline__ T inclusive_scan(T value, Op op) {
  const int lane = lane_id();
#pragma unroll
  for (int offset = 1; offset < warp_size; offset <<= 1) {
    const T other = shfl_up(value, offset);
    if (lane >= offset) value = op(other, value);
  }
  return value;
}

/// The exclusive form: lane 0 receives `identity`.
template <class T, class Op>
__device__ __forceinline__ T exclusive_from_inclusive(const T& inclusive, const T& identity) {
  const T previous = shfl_up(inclusive, 1);
  return lane_id() == 0 ? identity : previous;
}

}  // namespace lookback::warp
