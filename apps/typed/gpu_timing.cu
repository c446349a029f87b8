#include "typed/gpu_timing.hpp"

#include <atomic>
#include <cstdint>

namespace lookback::typed {
namespace {

__device__ std::uint64_t global_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void hold_stream(volatile int* flags, std::uint64_t timeout_ns) {
  const std::uint64_t start = global_ns();
  while (flags[0] == 0) {
    if (global_ns() - start > timeout_ns) {
      flags[1] = 1;
      return;
    }
    __nanosleep(500);
  }
}

}  // namespace

stream_hold::stream_hold(int timeout_ms) : timeout_ms_(timeout_ms) {
  LOOKBACK_CUDA_TRY(cudaHostAlloc(&flags_, 2 * sizeof(int), cudaHostAllocMapped));
  flags_[0] = flags_[1] = 0;
}

stream_hold::~stream_hold() { (void)cudaFreeHost(flags_); }

void stream_hold::hold(cudaStream_t stream) {
  // The previous hold has passed (the timer waited for its stop event), so nothing reads these now.
  flags_[0] = 0;
  flags_[1] = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  hold_stream<<<1, 1, 0, stream>>>(flags_, static_cast<std::uint64_t>(timeout_ms_) * 1000000u);
  LOOKBACK_CUDA_TRY(cudaGetLastError());
}

void stream_hold::release() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  reinterpret_cast<volatile int*>(flags_)[0] = 1;
}

bool stream_hold::timed_out() const { return reinterpret_cast<const volatile int*>(flags_)[1] != 0; }

}  // namespace lookback::typed
