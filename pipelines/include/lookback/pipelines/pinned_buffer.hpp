#pragma once
// Page-locked host memory for the pipeline's staging: copies from it run at the link's full speed and
// asynchronously (from pageable memory they go at about a third of it, and synchronously).
#include <lookback/primitives/error.cuh>

#include <cstddef>
#include <utility>

namespace lookback::pipelines {

class pinned_buffer {
 public:
  pinned_buffer() = default;
  explicit pinned_buffer(std::size_t bytes) : bytes_(bytes) {
    if (bytes_ != 0) LOOKBACK_CUDA_TRY(cudaHostAlloc(&data_, bytes_, cudaHostAllocDefault));
  }
  pinned_buffer(const pinned_buffer&) = delete;
  pinned_buffer& operator=(const pinned_buffer&) = delete;
  pinned_buffer(pinned_buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
  pinned_buffer& operator=(pinned_buffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(bytes_, other.bytes_);
    return *this;
  }
  ~pinned_buffer() {
    if (data_ != nullptr) (void)cudaFreeHost(data_);
  }
  [[nodiscard]] std::byte* data() const noexcept { return static_cast<std::byte*>(data_); }
  [[nodiscard]] std::size_t size() const noexcept { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace lookback::pipelines
