#pragma once
// An owning CUDA stream.
#include <lookback/primitives/error.cuh>

#include <utility>

namespace lookback {

class cuda_stream {
 public:
  cuda_stream() { LOOKBACK_CUDA_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  /// A stream whose blocks the GPU schedules before those of lower-priority streams' pending blocks
  /// (cudaDeviceGetStreamPriorityRange: lower numbers first), on the current device.
  explicit cuda_stream(int priority) {
    LOOKBACK_CUDA_TRY(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, priority));
  }
  /// The current device's first priority.
  [[nodiscard]] static int highest_priority() {
    int least = 0, greatest = 0;
    LOOKBACK_CUDA_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    return greatest;
  }
  cuda_stream(const cuda_stream&) = delete;
  cuda_stream& operator=(const cuda_stream&) = delete;
  cuda_stream(cuda_stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
  ~cuda_stream() {
    if (stream_ != nullptr) (void)cudaStreamDestroy(stream_);
  }
  [[nodiscard]] cudaStream_t get() const noexcept { return stream_; }
  operator cudaStream_t() const noexcept { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

}  // namespace lookback
