#pragma once
// How many blocks of a kernel the current device runs at once: the size of a device-filling grid.
// The answer is cached per kernel, device and shared-memory size, so calls after the first cost no
// driver queries (the device functions run on hot paths).
#include <lookback/primitives/error.cuh>

#include <map>
#include <mutex>
#include <tuple>

namespace lookback::detail {

template <class Kernel>
int resident_blocks(Kernel kernel, int threads, int dynamic_shared_bytes = 0) {
  static std::mutex mutex;
  static std::map<std::tuple<const void*, int, int, int>, int> cache;
  int device = 0;
  LOOKBACK_CUDA_TRY(cudaGetDevice(&device));
  const auto key = std::make_tuple(reinterpret_cast<const void*>(kernel), device, threads, dynamic_shared_bytes);
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = cache.find(key); it != cache.end()) return it->second;
  if (dynamic_shared_bytes > 48 * 1024) {
    // The device's whole opt-in limit, not this request: a later, smaller request must not lower the
    // limit under a size cached before it.
    int optin = 0;
    LOOKBACK_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    LOOKBACK_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
  }
  int sms = 0;
  int per_sm = 0;
  LOOKBACK_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  LOOKBACK_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, dynamic_shared_bytes));
  return cache[key] = sms * (per_sm > 0 ? per_sm : 1);
}

}  // namespace lookback::detail
