#pragma once
// A small owning, stream-ordered device array, used instead of raw cudaMalloc/cudaFree pairs.
#include <lookback/primitives/error.cuh>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <type_traits>
#include <utility>
#include <vector>

namespace lookback {

template <class T>
class device_buffer {
  static_assert(std::is_trivially_copyable_v<T>, "device_buffer holds trivially copyable types");

 public:
  device_buffer() = default;
  device_buffer(std::size_t size, cudaStream_t stream) : size_(size), stream_(stream) {
    if (size_ != 0) LOOKBACK_CUDA_TRY(cudaMallocAsync(reinterpret_cast<void**>(&data_), size_ * sizeof(T), stream_));
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& other) noexcept { swap(other); }
  device_buffer& operator=(device_buffer&& other) noexcept {
    device_buffer(std::move(other)).swap(*this);
    return *this;
  }
  ~device_buffer() {
    if (data_ == nullptr) return;
    // A destructor cannot throw; a failed free means the context is already broken, so say so, unless an
    // exception is on its way out: it already tells of the broken context, and every buffer it unwinds
    // would add a line to its one.
    if (cudaError_t e = cudaFreeAsync(data_, stream_); e != cudaSuccess && std::uncaught_exceptions() == 0)
      std::fprintf(stderr, "lookback: cudaFreeAsync failed in ~device_buffer: %s\n", cudaGetErrorString(e));
  }

  void swap(device_buffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(stream_, other.stream_);
  }

  [[nodiscard]] T* data() noexcept { return data_; }
  [[nodiscard]] const T* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::size_t bytes() const noexcept { return size_ * sizeof(T); }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] cudaStream_t stream() const noexcept { return stream_; }

  /// Sets every byte to `byte` on the buffer's stream (tests poison outputs with it).
  void fill_bytes(int byte) {
    if (size_ != 0) LOOKBACK_CUDA_TRY(cudaMemsetAsync(data_, byte, bytes(), stream_));
  }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
  cudaStream_t stream_ = nullptr;
};

/// Asynchronous copies; the host memory must stay alive until the stream reaches them.
template <class T>
void copy_to_device(T* d_dst, const T* src, std::size_t count, cudaStream_t stream) {
  if (count != 0) LOOKBACK_CUDA_TRY(cudaMemcpyAsync(d_dst, src, count * sizeof(T), cudaMemcpyHostToDevice, stream));
}
template <class T>
void copy_to_host(T* dst, const T* d_src, std::size_t count, cudaStream_t stream) {
  if (count != 0) LOOKBACK_CUDA_TRY(cudaMemcpyAsync(dst, d_src, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
}

/// Synchronous conveniences: they wait for the stream before returning.
template <class T>
[[nodiscard]] device_buffer<T> to_device(const std::vector<T>& host, cudaStream_t stream) {
  device_buffer<T> d(host.size(), stream);
  copy_to_device(d.data(), host.data(), host.size(), stream);
  LOOKBACK_CUDA_TRY(cudaStreamSynchronize(stream));
  return d;
}
template <class T>
[[nodiscard]] std::vector<T> to_host(const T* d_src, std::size_t count, cudaStream_t stream) {
  std::vector<T> host(count);
  copy_to_host(host.data(), d_src, count, stream);
  LOOKBACK_CUDA_TRY(cudaStreamSynchronize(stream));
  return host;
}
template <class T>
[[nodiscard]] std::vector<T> to_host(const device_buffer<T>& d) {
  return to_host(d.data(), d.size(), d.stream());
}

}  // namespace lookback
