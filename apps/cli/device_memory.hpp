#pragma once
// Device memory for a command's GPU work: a request larger than the GPU's free memory is refused
// before anything is allocated or launched, and an allocation that fails anyway is reported the same
// way. Both are one line and exit code os_error; the buffers allocated before are freed by then.
#include "cli/cli_error.hpp"
#include "cli/exit_codes.hpp"

#include <lookback/primitives/error.cuh>

#include <cstddef>
#include <string>
#include <utility>

namespace lookback::cli {

/// "17 bytes", "1.5 KiB", "512.0 MiB", "12.0 GiB": one decimal, in the largest unit not above it.
std::string byte_size_text(std::size_t bytes);

/// "needs 12.0 GiB of device memory (WHAT); 7.9 GiB free on DEVICE", with exact byte counts where the
/// two sizes would read the same.
std::string device_memory_message(std::size_t needed, std::size_t available, const std::string& device,
                                  const std::string& what);

/// What an allocation can get now: the device's free memory and what the stream-ordered pool holds
/// unused (freed buffers it keeps for reuse).
std::size_t device_memory_available();

/// Throws cli_error (exit code os_error) with device_memory_message when `bytes_needed` is more than
/// device_memory_available(). `what` says what the bytes hold ("input, output and temporary storage").
void ensure_device_memory(std::size_t bytes_needed, const std::string& what);

/// The same error, "device allocation failed: " first, for an allocation that failed although the check
/// passed (another process took the memory, or the pool could not find it in one piece).
[[noreturn]] void throw_out_of_device_memory(std::size_t bytes_needed, const std::string& what);

/// ensure_device_memory, then `work`; a failed allocation in it (cudaErrorMemoryAllocation) becomes
/// throw_out_of_device_memory's error once the unwinding has freed the buffers `work` held.
template <class Work>
decltype(auto) within_device_memory(std::size_t bytes_needed, const std::string& what, Work&& work) {
  ensure_device_memory(bytes_needed, what);
  try {
    return std::forward<Work>(work)();
  } catch (const cuda_error& e) {
    if (e.code() != cudaErrorMemoryAllocation) throw;
    throw_out_of_device_memory(bytes_needed, what);
  }
}

}  // namespace lookback::cli
