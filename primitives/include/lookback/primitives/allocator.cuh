#pragma once
// Stream-ordered allocation for the convenience overloads: temporary storage is taken and given back
// on the caller's stream, so no call synchronises the host.
#include <lookback/primitives/error.cuh>

#include <cstddef>

namespace lookback {

/// The default allocator: the CUDA runtime's stream-ordered pool (cudaMallocAsync). A caller-supplied
/// allocator needs the same two members.
struct stream_allocator {
  [[nodiscard]] void* allocate(std::size_t bytes, cudaStream_t stream) const {
    void* p = nullptr;
    if (bytes != 0) LOOKBACK_CUDA_TRY(cudaMallocAsync(&p, bytes, stream));
    return p;
  }
  void deallocate(void* p, std::size_t /*bytes*/, cudaStream_t stream) const {
    if (p != nullptr) LOOKBACK_CUDA_TRY(cudaFreeAsync(p, stream));
  }
};

namespace detail {

/// Runs a CUB-style two-phase call (size query with a null pointer, then the work) with storage from
/// `alloc`; the storage is released on the stream even when the work throws.
template <class Allocator, class Call>
void with_temp_storage(Allocator& alloc, cudaStream_t stream, Call&& call) {
  std::size_t bytes = 0;
  call(static_cast<void*>(nullptr), bytes);
  void* d_temp = alloc.allocate(bytes, stream);
  try {
    call(d_temp, bytes);
  } catch (...) {
    alloc.deallocate(d_temp, bytes, stream);
    throw;
  }
  alloc.deallocate(d_temp, bytes, stream);
}

}  // namespace detail
}  // namespace lookback
