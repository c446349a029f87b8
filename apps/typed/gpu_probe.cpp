#include "typed/gpu_probe.hpp"

#include <lookback/primitives/error.cuh>

namespace lookback::typed {

namespace {
struct device_count {
  int n = 0;
  cudaError_t error = cudaSuccess;
};

device_count count_devices() {
  device_count c;
  c.error = cudaGetDeviceCount(&c.n);
  if (c.error != cudaSuccess) {
    (void)cudaGetLastError();  // a machine without a driver: no GPUs, not a sticky error
    c.n = 0;
  }
  return c;
}
}  // namespace

int usable_gpu_count() { return count_devices().n; }

std::optional<std::string> gpu_unavailable_reason() {
  const device_count c = count_devices();
  if (c.error != cudaSuccess) return std::string("no usable CUDA device: ") + cudaGetErrorString(c.error);
  if (c.n == 0) return std::string("no CUDA device found");
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
