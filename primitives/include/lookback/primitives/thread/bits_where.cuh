#pragma once
// A thread's per-item decisions as the bits of one word: a bool an item holds a register each.
#include <cuda_runtime_api.h>

namespace lookback::thread {

/// The word whose bit k is test(k), for k < Count.
template <int Count, class Test>
__device__ __forceinline__ unsigned bits_where(Test test) {
  static_assert(Count >= 0 && Count <= 32, "the bits of one word");
  unsigned bits = 0;
#pragma unroll
  for (int k = 0; k < Count; ++k) bits |= (test(k) ? 1u : 0u) << k;
  return bits;
}

}  // namespace lookback::thread
