#pragma once
// How many blocks of a kernel the current device runs at once: the size of a device-filling grid.
// The answer is cached per kernel, device and shared-memory size, so calls after the first cost no
// driver queries (the device functions run on hot paths).
#include <lookback/primitives/error.cuh>

#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

namespace lookback::detail {

/// Lets `kernel` launch with `dynamic_shared_bytes` past the default 48 KiB: raises its limit to the
/// device's whole opt-in size, not to this request, so a later, smaller request never lowers it.
template <class Kernel>
void allow_dynamic_shared_memory(Kernel kernel, int dynamic_shared_bytes) {
  if (dynamic_shared_bytes <= 48 * 1024) return;
  int device = 0;
  int optin = 0;
  LOOKBACK_CUDA_TRY(cudaGetDevice(&device));
  LOOKBACK_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (dynamic_shared_bytes > optin)
    throw std::invalid_argument("a block needs " + std::to_string(dynamic_shared_bytes) +
                                " bytes of shared memory; the device allows " + std::to_string(optin));
  LOOKBACK_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
}

/// Asks for the largest shared-memory carveout for `kernel`, once per kernel and device: a kernel whose
/// registers allow more blocks an SM than the default carveout's shared memory does.
template <class Kernel>
void prefer_shared_memory(Kernel kernel) {
  static std::mutex mutex;
  static std::map<std::pair<const void*, int>, bool> done;
  int device = 0;
  LOOKBACK_CUDA_TRY(cudaGetDevice(&device));
  const auto key = std::make_pair(reinterpret_cast<const void*>(kernel), device);
  const std::lock_guard<std::mutex> lock(mutex);
  if (done.count(key) != 0) return;
  LOOKBACK_CUDA_TRY(
      cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
  done[key] = true;
}

template <class Kernel>
int resident_blocks(Kernel kernel, int threads, int dynamic_shared_bytes = 0) {
  static std::mutex mutex;
  static std::map<std::tuple<const void*, int, int, int>, int> cache;
  int device = 0;
  LOOKBACK_CUDA_TRY(cudaGetDevice(&device));
  const auto key = std::make_tuple(reinterpret_cast<const void*>(kernel), device, threads, dynamic_shared_bytes);
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = cache.find(key); it != cache.end()) return it->second;
  allow_dynamic_shared_memory(kernel, dynamic_shared_bytes);
  int sms = 0;
  int per_sm = 0;
  LOOKBACK_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  LOOKBACK_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, dynamic_shared_bytes));
  return cache[key] = sms * (per_sm > 0 ? per_sm : 1);
}

}  // namespace lookback::detail
