#pragma once
// A look-back kernel's temporary storage (its tile counter and descriptors) must read zero when the
// kernel starts. With a memset in front, the kernel's launch (blocks placed, shared memory and barriers
// set up) waits for the memset's end. Here a kernel clears the storage and lets the look-back kernel
// launch dependent on it at once (detail/dependent_launch.cuh): its blocks are resident and set up by
// the time the storage is clear, and wait in wait_for_prior_grid before anything else.
#include <lookback/primitives/detail/dependent_launch.cuh>
#include <lookback/primitives/detail/temp_layout.cuh>
#include <lookback/primitives/error.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>

namespace lookback::detail {

/// Zeroes `words` 16-byte words, after letting the next kernel in the stream launch. A template, so
/// that every translation unit may define it.
template <class Word>
__global__ void clear_words(Word* d_words, std::size_t words) {
  allow_dependent_launch();
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < words;
       i += std::size_t{gridDim.x} * blockDim.x)
    d_words[i] = Word{};
}

/// Clears `bytes` of `d_storage` (detail/temp_layout.cuh's parts: 256-byte aligned, a multiple of 256
/// bytes), then launches `kernel`, which must call wait_for_prior_grid before it touches them.
template <class... Params, class... Args>
void clear_then_launch(void* d_storage, std::size_t bytes, void (*kernel)(Params...), dim3 grid, dim3 block,
                       std::size_t shared_bytes, cudaStream_t stream, Args&&... args) {
  if (reinterpret_cast<std::uintptr_t>(d_storage) % sizeof(uint4) != 0 || bytes % sizeof(uint4) != 0)
    throw std::logic_error("lookback: storage to clear must be whole, aligned 16-byte words");
  constexpr unsigned threads = 256;
  const std::size_t words = bytes / sizeof(uint4);
  const auto blocks = static_cast<unsigned>(std::min<std::size_t>((words + threads - 1) / threads, 1024));
  clear_words<<<std::max(blocks, 1u), threads, 0, stream>>>(static_cast<uint4*>(d_storage), words);
  LOOKBACK_CUDA_TRY(cudaGetLastError());
  launch_dependent(kernel, grid, block, shared_bytes, stream, std::forward<Args>(args)...);
}

/// The same over every part `layout` places in `d_temp_storage`.
template <class... Params, class... Args>
void clear_then_launch(const temp_layout& layout, void* d_temp_storage, void (*kernel)(Params...), dim3 grid,
                       dim3 block, std::size_t shared_bytes, cudaStream_t stream, Args&&... args) {
  clear_then_launch(layout.start(d_temp_storage), layout.parts_bytes(), kernel, grid, block, shared_bytes, stream,
                    std::forward<Args>(args)...);
}

}  // namespace lookback::detail
