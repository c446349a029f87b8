#pragma once
// Convolution kernels. Tiled: a block stages its outputs' inputs, halos included, in shared memory
// once (boundary handling only where a tile crosses an edge), then every output reads its window from
// there: each input is read from global memory about once instead of once per tap. Direct: for masks
// too wide for a staged tile, windows read global memory through the cache.
#include <lookback/primitives/convolution/boundary.cuh>

#include <cstdint>

namespace lookback::convolution::device {

/// y[i] = sum_{j < width} x[i - left + j] * mask[j], x past its ends as `b` says.
template <class Policy, class T, class Mask>
__global__ void __launch_bounds__(Policy::threads)
    tiled_convolution1d_kernel(const T* d_in, T* d_out, std::int64_t n, Mask mask, int width, int left, boundary b) {
  extern __shared__ unsigned char staging_bytes[];
  T* staged = reinterpret_cast<T*>(staging_bytes);
  const std::int64_t first_output = std::int64_t{blockIdx.x} * Policy::tile_outputs;
  const std::int64_t first_input = first_output - left;
  const int staged_count = Policy::tile_outputs + width - 1;
  if (first_input >= 0 && first_input + staged_count <= n) {
    // The tile's own inputs first, every load in flight before the first store to shared memory (a
    // loop over the run-time staged count kept one or two, and the kernel at 85% of a memcpy), then
    // the halo.
    T body[Policy::outputs_per_thread];
#pragma unroll
    for (int m = 0; m < Policy::outputs_per_thread; ++m)
      body[m] = d_in[first_input + m * Policy::threads + static_cast<int>(threadIdx.x)];
#pragma unroll
    for (int m = 0; m < Policy::outputs_per_thread; ++m) staged[m * Policy::threads + threadIdx.x] = body[m];
    for (int k = Policy::tile_outputs + static_cast<int>(threadIdx.x); k < staged_count; k += Policy::threads)
      staged[k] = d_in[first_input + k];
  } else {
    for (int k = threadIdx.x; k < staged_count; k += Policy::threads) {
      const std::int64_t src = source_index(first_input + k, n, b);
      staged[k] = src < 0 ? T{0} : d_in[src];
    }
  }
  __syncthreads();
#pragma unroll
  for (int m = 0; m < Policy::outputs_per_thread; ++m) {
    const int o = m * Policy::threads + static_cast<int>(threadIdx.x);
    if (first_output + o >= n) break;
    T acc{0};
    for (int j = 0; j < width; ++j) acc += staged[o + j] * mask[j];
    d_out[first_output + o] = acc;
  }
}

template <class T, class Mask>
__global__ void direct_convolution1d_kernel(const T* d_in, T* d_out, std::int64_t n, Mask mask, int width, int left,
                                            boundary b) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x) {
    T acc{0};
    for (int j = 0; j < width; ++j) {
      const std::int64_t src = source_index(i - left + j, n, b);
      if (src >= 0) acc += __ldg(d_in + src) * mask[j];
    }
    d_out[i] = acc;
  }
}

/// out(r, c) = sum_{a < mask_height, b < mask_width} in(r - top + a, c - left_col + b) * mask[a * mask_width + b].
template <class Policy, class T, class Mask>
__global__ void __launch_bounds__(Policy::block_x * Policy::block_y)
    tiled_convolution2d_kernel(const T* d_in, std::int64_t in_pitch, T* d_out, std::int64_t out_pitch, int height,
                               int width, Mask mask, int mask_height, int mask_width, boundary b) {
  extern __shared__ unsigned char staging_bytes[];
  T* staged = reinterpret_cast<T*>(staging_bytes);
  const int staged_width = Policy::tile_width + mask_width - 1;
  const int staged_height = Policy::tile_height + mask_height - 1;
  const int first_col = static_cast<int>(blockIdx.x) * Policy::tile_width;
  const int top = mask_height / 2;
  const int left = mask_width / 2;
  const int thread = static_cast<int>(threadIdx.y) * Policy::block_x + static_cast<int>(threadIdx.x);
  constexpr int threads = Policy::block_x * Policy::block_y;
  const int col = first_col + static_cast<int>(threadIdx.x);
  // Tiles of rows stride by the grid: its y dimension (at most 65535 blocks) need not cover the image.
  const int row_tiles = (height + Policy::tile_height - 1) / Policy::tile_height;
  for (int tile_y = static_cast<int>(blockIdx.y); tile_y < row_tiles; tile_y += static_cast<int>(gridDim.y)) {
    const int first_row = tile_y * Policy::tile_height;
    if (tile_y != static_cast<int>(blockIdx.y)) __syncthreads();  // every read of the last tile done
    for (int k = thread; k < staged_width * staged_height; k += threads) {
      const int sr = k / staged_width;
      const int sc = k - sr * staged_width;
      const std::int64_t r = source_index(first_row - top + sr, height, b);
      const std::int64_t c = source_index(first_col - left + sc, width, b);
      staged[k] = (r < 0 || c < 0) ? T{0} : d_in[r * in_pitch + c];
    }
    __syncthreads();
    if (col >= width) continue;
#pragma unroll
    for (int m = 0; m < Policy::rows_per_thread; ++m) {
      const int tile_row = static_cast<int>(threadIdx.y) + m * Policy::block_y;
      const int row = first_row + tile_row;
      if (row >= height) break;
      T acc{0};
      for (int a = 0; a < mask_height; ++a) {
        const T* window = staged + (tile_row + a) * staged_width + threadIdx.x;
        for (int c = 0; c < mask_width; ++c) acc += window[c] * mask[a * mask_width + c];
      }
      d_out[static_cast<std::int64_t>(row) * out_pitch + col] = acc;
    }
  }
}

template <class T, class Mask>
__global__ void direct_convolution2d_kernel(const T* d_in, std::int64_t in_pitch, T* d_out, std::int64_t out_pitch,
                                            int height, int width, Mask mask, int mask_height, int mask_width,
                                            boundary b) {
  const int col = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (col >= width) return;
  // Rows stride by the grid: its y dimension (at most 65535 blocks) need not cover the image.
  for (int row = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y); row < height;
       row += static_cast<int>(gridDim.y * blockDim.y)) {
    T acc{0};
    for (int a = 0; a < mask_height; ++a) {
      const std::int64_t r = source_index(row - mask_height / 2 + a, height, b);
      if (r < 0) continue;
      for (int c = 0; c < mask_width; ++c) {
        const std::int64_t cc = source_index(col - mask_width / 2 + c, width, b);
        if (cc >= 0) acc += __ldg(d_in + r * in_pitch + cc) * mask[a * mask_width + c];
      }
    }
    d_out[static_cast<std::int64_t>(row) * out_pitch + col] = acc;
  }
}

}  // namespace lookback::convolution::device
