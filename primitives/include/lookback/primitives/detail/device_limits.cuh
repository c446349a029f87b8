#pragma once
// How many blocks of a kernel the current device runs at once (the size of a device-filling grid),
// and the shared memory a kernel may have; answers cached per kernel and device.
#include <lookback/primitives/detail/per_kernel_cache.cuh>
#include <lookback/primitives/error.cuh>

#include <stdexcept>
#include <string>

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
  cached_per_kernel<bool>(kernel, 0, 0, [&](int) {
    LOOKBACK_CUDA_TRY(
        cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
    return true;
  });
}

template <class Kernel>
int resident_blocks(Kernel kernel, int threads, int dynamic_shared_bytes = 0) {
  return cached_per_kernel<int>(kernel, threads, dynamic_shared_bytes, [&](int device) {
    allow_dynamic_shared_memory(kernel, dynamic_shared_bytes);
    int sms = 0;
    int per_sm = 0;
    LOOKBACK_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    LOOKBACK_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, dynamic_shared_bytes));
    return sms * (per_sm > 0 ? per_sm : 1);
  });
}

}  // namespace lookback::detail
