#pragma once
// Whether a usable CUDA device is present, and why not when it is not.
#include <optional>
#include <string>

namespace lookback::typed {

/// How many CUDA devices this process sees; 0 where there is no driver.
int usable_gpu_count();

/// nullopt when a device is usable; otherwise one line saying why not.
std::optional<std::string> gpu_unavailable_reason();

/// "NVIDIA H100 80GB HBM3"
std::string gpu_name();

/// "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)"
std::string gpu_description();

}  // namespace lookback::typed
