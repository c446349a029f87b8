#include "typed/gpu_probe.hpp"

#include <lookback/primitives/error.cuh>

namespace lookback::typed {

std::optional<std::string> gpu_unavailable_reason() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return std::string("no usable CUDA device: ") + cudaGetErrorString(e);
  }
  if (count == 0) return std::string("no CUDA device found");
  return std::nullopt;
}

namespace {
cudaDeviceProp current_device_properties() {
  int device = 0;
  cudaDeviceProp prop{};
  LOOKBACK_CUDA_TRY(cudaGetDevice(&device));
  LOOKBACK_CUDA_TRY(cudaGetDeviceProperties(&prop, device));
  return prop;
}
}  // namespace

std::string gpu_name() { return current_device_properties().name; }

std::string gpu_description() {
  const cudaDeviceProp prop = current_device_properties();
  return std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ", " +
         std::to_string(prop.multiProcessorCount) + " SMs)";
}

}  // namespace lookback::typed
