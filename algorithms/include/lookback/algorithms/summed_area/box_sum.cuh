#pragma once
// Rectangle sums from a summed-area table, apart from the kernels so that host-only code (the CPU
// reference, the command's CPU backend) can use them too.
#include <cuda_runtime_api.h>  // __host__ __device__ for host compilers too

#include <cstdint>

namespace lookback {

/// The sum over rows r0..r1 and columns c0..c1 (inclusive) from a table in host memory or device code.
template <class Acc>
__host__ __device__ Acc box_sum(const Acc* table, std::int64_t pitch, int r0, int c0, int r1, int c1) {
  const auto at = [&](int r, int c) { return r < 0 || c < 0 ? Acc{0} : table[static_cast<std::int64_t>(r) * pitch + c]; };
  return at(r1, c1) - at(r0 - 1, c1) - at(r1, c0 - 1) + at(r0 - 1, c0 - 1);
}

}  // namespace lookback
