#pragma once
// Programmatic dependent launch (Hopper and later): a kernel launched with launch_dependent may start
// while the kernel before it in the stream finishes, its blocks resident and waiting in
// wait_for_prior_grid until that grid has completed and its writes are visible. A chain of short
// kernels (a sort's passes) so loses the gap between one kernel's last block and the next one's first.
// Older devices launch the same kernels in plain stream order, where both device calls are no-ops.
#include <lookback/primitives/detail/per_kernel_cache.cuh>
#include <lookback/primitives/error.cuh>

#include <utility>

namespace lookback::detail {

/// Before a dependent kernel reads anything its predecessor in the stream wrote.
__device__ __forceinline__ void wait_for_prior_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// Lets the next kernel in the stream, if launched dependent, start launching once every block of
/// this grid has called it or finished: called early, so that its blocks are resident by the time
/// this grid's last blocks finish.
__device__ __forceinline__ void allow_dependent_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/// Whether `kernel` may be launched dependent on the current device: the device must be of compute
/// capability 9.0 or later, and the kernel's code must come from PTX of 9.0 or later, since only there
/// does it wait for its predecessor (a consumer's PTX for an older GPU, compiled by the driver for a
/// Hopper, has no wait). Cached per kernel and device.
template <class Kernel>
bool dependent_launch_supported(Kernel kernel) {
  return cached_per_kernel<bool>(kernel, 0, 0, [&](int device) {
    int major = 0;
    LOOKBACK_CUDA_TRY(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    cudaFuncAttributes attributes{};
    LOOKBACK_CUDA_TRY(cudaFuncGetAttributes(&attributes, kernel));
    return major >= 9 && attributes.ptxVersion >= 90;
  });
}

/// Launches `kernel` allowed to overlap the end of the stream's previous kernel; it must call
/// wait_for_prior_grid before touching that kernel's results. Checked like every launch.
template <class... Params, class... Args>
void launch_dependent(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared_bytes,
                      cudaStream_t stream, Args&&... args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = dependent_launch_supported(kernel) ? 1 : 0;
  LOOKBACK_CUDA_TRY(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

}  // namespace lookback::detail
