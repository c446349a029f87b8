#pragma once
// How many blocks of a kernel the current device runs at once: the size of a device-filling grid.
#include <lookback/primitives/error.cuh>

namespace lookback::detail {

template <class Kernel>
int resident_blocks(Kernel kernel, int threads) {
  int device = 0;
  int sms = 0;
  int per_sm = 0;
  LOOKBACK_CUDA_TRY(cudaGetDevice(&device));
  LOOKBACK_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  LOOKBACK_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0));
  return sms * (per_sm > 0 ? per_sm : 1);
}

}  // namespace lookback::detail
