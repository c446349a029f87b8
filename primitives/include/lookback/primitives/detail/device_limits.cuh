#pragma once
// How many blocks of a kernel the current device runs at once (the size of a device-filling grid),
// and the shared memory a kernel may have; answers cached per kernel and device.
#include <lookback/primitives/detail/per_kernel_cache.cuh>
#include <lookback/primitives/error.cuh>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace lookback::detail {

/// The kernel's static shared memory a block, and the most dynamic shared memory a block of it may
/// have beside that on the current device once opted in; cached per kernel and device.
struct shared_memory_limits {
  int static_bytes;
  int dynamic_limit;
};

template <class Kernel>
shared_memory_limits shared_memory_limits_of(Kernel kernel) {
  return cached_per_kernel<shared_memory_limits>(kernel, 0, 0, [&](int device) {
    int optin = 0;
    cudaFuncAttributes attributes{};
    LOOKBACK_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    LOOKBACK_CUDA_TRY(cudaFuncGetAttributes(&attributes, kernel));
    const int static_bytes = static_cast<int>(attributes.sharedSizeBytes);
    return shared_memory_limits{static_bytes, optin - static_bytes};
  });
}

/// Whether the current device lets a block of `kernel` have `dynamic_shared_bytes` beside its static
/// shared memory.
template <class Kernel>
bool fits_dynamic_shared_memory(Kernel kernel, int dynamic_shared_bytes) {
  return dynamic_shared_bytes <= shared_memory_limits_of(kernel).dynamic_limit;
}

/// Lets `kernel` launch with `dynamic_shared_bytes` past the default 48 KiB a block (static and dynamic
/// together): raises its limit to all that the device's opt-in size leaves beside the kernel's static
/// shared memory, not to this request, so a later, smaller request never lowers it.
template <class Kernel>
void allow_dynamic_shared_memory(Kernel kernel, int dynamic_shared_bytes) {
  if (dynamic_shared_bytes == 0) return;
  const shared_memory_limits limits = shared_memory_limits_of(kernel);
  if (limits.static_bytes + dynamic_shared_bytes <= 48 * 1024) return;
  if (dynamic_shared_bytes > limits.dynamic_limit)
    throw std::invalid_argument("a block needs " + std::to_string(dynamic_shared_bytes) +
                                " bytes of dynamic shared memory; the device allows " +
                                std::to_string(limits.dynamic_limit));
  LOOKBACK_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, limits.dynamic_limit));
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

/// A grid's y extent for `rows` rows, `rows_per_block` a block: at most 65535 blocks, the kernel striding
/// over the rest.
inline int grid_rows(int rows, int rows_per_block) {
  return std::min((rows + rows_per_block - 1) / rows_per_block, 65535);
}

/// Blocks of `kernel` an SM of the current device holds at once (0 if none fits).
template <class Kernel>
int blocks_per_sm(Kernel kernel, int threads, int dynamic_shared_bytes = 0) {
  return cached_per_kernel<int>(kernel, threads, dynamic_shared_bytes, [&](int) {
    allow_dynamic_shared_memory(kernel, dynamic_shared_bytes);
    int per_sm = 0;
    LOOKBACK_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, dynamic_shared_bytes));
    return per_sm;
  });
}

/// Asks for the shared-memory carveout that as many blocks of `kernel` as fit an SM need, once per
/// kernel and device. An SM keeps the split between L1 and shared memory that the kernel before left
/// it as long as the new blocks fit, so without this a kernel after one that took more shared memory
/// runs with less L1 than it was measured with.
template <class Kernel>
void prefer_carveout_for_occupancy(Kernel kernel, int threads, int dynamic_shared_bytes) {
  cached_per_kernel<bool>(kernel, threads, dynamic_shared_bytes, [&](int device) {
    const int blocks = blocks_per_sm(kernel, threads, dynamic_shared_bytes);
    int per_sm = 0;
    int reserved = 0;
    LOOKBACK_CUDA_TRY(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
    LOOKBACK_CUDA_TRY(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device));
    const std::int64_t per_block =
        std::int64_t{dynamic_shared_bytes} + shared_memory_limits_of(kernel).static_bytes + reserved;
    const std::int64_t needed = std::int64_t{std::max(blocks, 1)} * per_block;
    const int percent = static_cast<int>(std::min<std::int64_t>(100, (100 * needed + per_sm - 1) / per_sm));
    LOOKBACK_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, percent));
    return true;
  });
}

/// Whether the code of `kernel` that the current device runs was compiled from a virtual architecture
/// of sm_90 or later (__CUDA_ARCH__ >= 900), so that Hopper's instructions in it are there: a binary
/// built for older GPUs runs their code, or their PTX compiled for this one.
template <class Kernel>
bool compiled_for_hopper(Kernel kernel) {
  return cached_per_kernel<bool>(kernel, 0, 0, [&](int) {
    cudaFuncAttributes attributes{};
    LOOKBACK_CUDA_TRY(cudaFuncGetAttributes(&attributes, kernel));
    return attributes.ptxVersion >= 90;
  });
}

template <class Kernel>
int resident_blocks(Kernel kernel, int threads, int dynamic_shared_bytes = 0) {
  return cached_per_kernel<int>(kernel, threads, dynamic_shared_bytes, [&](int device) {
    int sms = 0;
    LOOKBACK_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const int per_sm = blocks_per_sm(kernel, threads, dynamic_shared_bytes);
    return sms * (per_sm > 0 ? per_sm : 1);
  });
}

}  // namespace lookback::detail
