#include "cli/device_memory.hpp"

#include "typed/gpu_probe.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>

namespace lookback::cli {

std::string byte_size_text(std::size_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
  static constexpr const char* units[] = {"KiB", "MiB", "GiB"};
  double value = static_cast<double>(bytes) / 1024;
  int unit = 0;
  // Up a unit once the value would round to 1024.0 ("1023.96 MiB" reads as 1.0 GiB).
  while (unit < 2 && std::round(value * 10) >= 1024 * 10) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
  return text;
}

std::string device_memory_message(std::size_t needed, std::size_t available, const std::string& device,
                                  const std::string& what) {
  std::string need = byte_size_text(needed), have = byte_size_text(available);
  if (need == have) need = std::to_string(needed) + " bytes", have = std::to_string(available) + " bytes";
  return "needs " + need + " of device memory (" + what + "); " + have + " free on " + device;
}

std::size_t device_memory_available() {
  std::size_t free_bytes = 0, total_bytes = 0;
  LOOKBACK_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
  int device = 0;
  cudaMemPool_t pool{};
  LOOKBACK_CUDA_TRY(cudaGetDevice(&device));
  LOOKBACK_CUDA_TRY(cudaDeviceGetMemPool(&pool, device));
  std::uint64_t reserved = 0, used = 0;
  LOOKBACK_CUDA_TRY(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
  LOOKBACK_CUDA_TRY(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
  return free_bytes + static_cast<std::size_t>(reserved > used ? reserved - used : 0);
}

void ensure_device_memory(std::size_t bytes_needed, const std::string& what) {
  const std::size_t available = device_memory_available();
  if (bytes_needed > available)
    throw cli_error(exit_code::os_error, device_memory_message(bytes_needed, available, typed::gpu_name(), what));
}

void throw_out_of_device_memory(std::size_t bytes_needed, const std::string& what) {
  throw cli_error(exit_code::os_error, "device allocation failed: " + device_memory_message(bytes_needed,
                                                                                           device_memory_available(),
                                                                                           typed::gpu_name(), what));
}

}  // namespace lookback::cli
