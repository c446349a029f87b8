#pragma once
// An owning CUDA stream.
#include <lookback/primitives/error.cuh>

#include <utility>

namespace lookback {

class cuda_stream {
 public:
  cuda_stream() { LOOKBACK_CUDA_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
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
