#pragma once
// The textbook's convolution kernels, rung by rung, beside the production ones (convolution.cuh).
// All compute the centred correlation form with zero ghost elements, float or double:
//   1D  1 basic: a thread per output, input and mask from global memory;
//       2 the mask in a __constant__ array (reads broadcast from the constant cache);
//       3 tiled: the block's inputs and both halos staged in shared memory;
//       4 tiled, the halos left to the cache: only the block's own inputs staged;
//       5 production (masks as kernel parameters, several outputs per thread).
//   2D  1 basic; 2 tiled (constant mask, input tile larger than the output tile by the halo, the
//       threads of the halo load but do not compute); 3 production.
// The __constant__ arrays are this header's, one copy per translation unit: so is everything that
// touches them (an unnamed namespace), so that no template a linker folds across translation units
// writes one unit's copy and launches a kernel reading another's. Two streams running rungs 2 to 4 or
// 2D rung 2 with different masks at once would race on them, which is why the production kernels pass
// masks by value instead. A caller timing those rungs makes one call that uploads the mask, then passes
// mask_upload::done, so that the pageable copy is not timed as the kernel's.
#include <lookback/primitives/convolution.cuh>
#include <lookback/primitives/detail/device_limits.cuh>
#include <lookback/primitives/error.cuh>
#include <lookback/primitives/ladder/convolution_limits.hpp>
#include <lookback/primitives/ladder/ladder_common.cuh>
#include <lookback/primitives/ladder/tiling_reduction.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace lookback::ladder {

enum class convolution1d_variant { basic = 1, constant_mask, tiled_halo, tiled_cache, production };
enum class convolution2d_variant { basic = 1, tiled, production };

/// Whether a call copies its mask into constant memory first (rungs 2 to 4, 2D rung 2), or finds it
/// there from an earlier call of the same translation unit.
enum class mask_upload { each_call, done };

namespace detail {
namespace {

__constant__ float c_mask_float[max_ladder_mask_taps];
__constant__ double c_mask_double[max_ladder_mask_taps];

template <class T>
__device__ __forceinline__ T constant_tap(int j) {
  if constexpr (std::is_same_v<T, float>) return c_mask_float[j];
  else return c_mask_double[j];
}

template <class T>
void set_constant_mask(const T* h_mask, int taps, cudaStream_t stream) {
  const void* symbol = nullptr;
  if constexpr (std::is_same_v<T, float>) symbol = reinterpret_cast<const void*>(&c_mask_float);
  else symbol = reinterpret_cast<const void*>(&c_mask_double);
  LOOKBACK_CUDA_TRY(cudaMemcpyToSymbolAsync(symbol, h_mask, static_cast<std::size_t>(taps) * sizeof(T), 0,
                                            cudaMemcpyHostToDevice, stream));
}

template <class T>
__global__ void conv1d_basic(const T* in, const T* mask, T* out, int width, std::int64_t n) {
  const std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  const std::int64_t start = i - width / 2;
  T acc{0};
  for (int j = 0; j < width; ++j)
    if (start + j >= 0 && start + j < n) acc += in[start + j] * mask[j];
  out[i] = acc;
}

template <class T>
__global__ void conv1d_constant_mask(const T* in, T* out, int width, std::int64_t n) {
  const std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x;
  if (i >= n) return;
  const std::int64_t start = i - width / 2;
  T acc{0};
  for (int j = 0; j < width; ++j)
    if (start + j >= 0 && start + j < n) acc += in[start + j] * constant_tap<T>(j);
  out[i] = acc;
}

/// The left halo is the previous tile's last r inputs, the right halo the next tile's first r.
template <class T>
__global__ void __launch_bounds__(block_threads) conv1d_tiled_halo(const T* in, T* out, int width, std::int64_t n) {
  __shared__ T staged[block_threads + max_ladder_mask_taps - 1];
  const int r = width / 2;
  const std::int64_t i = blockIdx.x * std::int64_t{block_threads} + threadIdx.x;
  const int t = static_cast<int>(threadIdx.x);
  if (t >= block_threads - r) {
    const std::int64_t left = i - block_threads;  // the previous tile's element at this lane
    staged[t - (block_threads - r)] = left < 0 ? T{0} : in[left];
  }
  staged[r + t] = i < n ? in[i] : T{0};
  if (t < r) {
    const std::int64_t right = i + block_threads;
    staged[r + block_threads + t] = right < n ? in[right] : T{0};
  }
  __syncthreads();
  if (i >= n) return;
  T acc{0};
  for (int j = 0; j < width; ++j) acc += staged[t + j] * constant_tap<T>(j);
  out[i] = acc;
}

/// Only the tile's own inputs in shared memory; the halo comes from global memory, where the
/// neighbouring tiles' loads have most likely left it in the cache.
template <class T>
__global__ void __launch_bounds__(block_threads) conv1d_tiled_cache(const T* in, T* out, int width, std::int64_t n) {
  __shared__ T staged[block_threads];
  const std::int64_t tile_start = blockIdx.x * std::int64_t{block_threads};
  const std::int64_t i = tile_start + threadIdx.x;
  staged[threadIdx.x] = i < n ? in[i] : T{0};
  __syncthreads();
  if (i >= n) return;
  const std::int64_t start = i - width / 2;
  T acc{0};
  for (int j = 0; j < width; ++j) {
    const std::int64_t k = start + j;
    if (k >= tile_start && k < tile_start + block_threads) acc += staged[k - tile_start] * constant_tap<T>(j);
    else if (k >= 0 && k < n) acc += in[k] * constant_tap<T>(j);
  }
  out[i] = acc;
}

/// The 2D rungs' blocks stride over row tiles: a grid's y extent stops at 65535.
template <class T>
__global__ void conv2d_basic(const T* in, const T* mask, T* out, int mask_side, int height, int width) {
  const int col = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (col >= width) return;
  const int r = mask_side / 2;
  for (int row = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y); row < height;
       row += static_cast<int>(gridDim.y * blockDim.y)) {
    T acc{0};
    for (int a = 0; a < mask_side; ++a)
      for (int b = 0; b < mask_side; ++b) {
        const int rr = row - r + a;
        const int cc = col - r + b;
        if (rr >= 0 && rr < height && cc >= 0 && cc < width)
          acc += in[static_cast<std::int64_t>(rr) * width + cc] * mask[a * mask_side + b];
      }
    out[static_cast<std::int64_t>(row) * width + col] = acc;
  }
}

/// Blocks of (tile + mask side - 1)^2 threads each load one input (ghosts 0); the inner tile^2
/// threads then compute an output each from shared memory.
template <class T>
__global__ void conv2d_tiled(const T* in, T* out, int mask_side, int height, int width) {
  constexpr int max_in = conv2d_output_tile + max_ladder_mask_side - 1;
  __shared__ T staged[max_in][max_in];
  const int r = mask_side / 2;
  const int tx = static_cast<int>(threadIdx.x);
  const int ty = static_cast<int>(threadIdx.y);
  const int col = static_cast<int>(blockIdx.x) * conv2d_output_tile + tx - r;
  const int ox = tx - r;
  const int oy = ty - r;
  const bool computes = ox >= 0 && oy >= 0 && ox < conv2d_output_tile && oy < conv2d_output_tile && col < width;
  const int row_tiles = (height + conv2d_output_tile - 1) / conv2d_output_tile;
  for (int tile = static_cast<int>(blockIdx.y); tile < row_tiles; tile += static_cast<int>(gridDim.y)) {
    const int row = tile * conv2d_output_tile + ty - r;
    staged[ty][tx] = (row >= 0 && row < height && col >= 0 && col < width)
                         ? in[static_cast<std::int64_t>(row) * width + col]
                         : T{0};
    __syncthreads();
    if (computes && row < height) {
      T acc{0};
      for (int a = 0; a < mask_side; ++a)
        for (int b = 0; b < mask_side; ++b) acc += staged[oy + a][ox + b] * constant_tap<T>(a * mask_side + b);
      out[static_cast<std::int64_t>(row) * width + col] = acc;
    }
    __syncthreads();  // the next tile's loads overwrite what this one read
  }
}

}  // namespace
}  // namespace detail

namespace {

/// out = in correlated with the mask (mask_width odd taps, host memory), zero ghosts, by rung
/// `variant`. Rungs 1 to 4 take up to 255 taps. d_mask: the same taps in device memory (rung 1 reads
/// them there).
template <class T>
void convolve1d(convolution1d_variant variant, const T* d_in, T* d_out, std::int64_t n, const T* h_mask,
                const T* d_mask, int mask_width, cudaStream_t stream = nullptr,
                mask_upload upload = mask_upload::each_call) {
  using namespace detail;
  constexpr const char* who = "lookback::ladder::convolve1d";
  check_item_count(n, who);
  if (mask_width < 1 || mask_width % 2 == 0)
    throw std::invalid_argument(std::string(who) + ": the mask needs an odd number of taps");
  if (variant != convolution1d_variant::production && mask_width > max_ladder_mask_taps)
    throw std::invalid_argument(std::string(who) + ": the textbook rungs take up to " +
                                std::to_string(max_ladder_mask_taps) + " taps");
  if (variant == convolution1d_variant::production)
    return ::lookback::convolve1d(d_in, d_out, n, h_mask, mask_width, boundary::zero, stream);
  if (n == 0) return;
  const unsigned grid = grid_of(ceil_div(n, block_threads), who);
  if (variant != convolution1d_variant::basic && upload == mask_upload::each_call)
    set_constant_mask(h_mask, mask_width, stream);
  switch (variant) {
    case convolution1d_variant::basic:
      conv1d_basic<<<grid, block_threads, 0, stream>>>(d_in, d_mask, d_out, mask_width, n);
      break;
    case convolution1d_variant::constant_mask:
      conv1d_constant_mask<<<grid, block_threads, 0, stream>>>(d_in, d_out, mask_width, n);
      break;
    case convolution1d_variant::tiled_halo:
      conv1d_tiled_halo<<<grid, block_threads, 0, stream>>>(d_in, d_out, mask_width, n);
      break;
    case convolution1d_variant::tiled_cache:
      conv1d_tiled_cache<<<grid, block_threads, 0, stream>>>(d_in, d_out, mask_width, n);
      break;
    default: throw std::invalid_argument(std::string(who) + ": unknown variant");
  }
  LOOKBACK_CUDA_TRY(cudaGetLastError());
}

/// A height x width image (dense rows) correlated with a square odd mask, zero ghosts. Rungs 1 and 2
/// take sides up to 15.
template <class T>
void convolve2d(convolution2d_variant variant, const T* d_in, T* d_out, int height, int width, const T* h_mask,
                const T* d_mask, int mask_side, cudaStream_t stream = nullptr,
                mask_upload upload = mask_upload::each_call) {
  using namespace detail;
  constexpr const char* who = "lookback::ladder::convolve2d";
  if (mask_side < 1 || mask_side % 2 == 0) throw std::invalid_argument(std::string(who) + ": the mask needs an odd side");
  // As the production convolve2d: column and row indices, halos included, stay within an int.
  lookback::detail::check_image_sides(height, width, who);
  if (variant != convolution2d_variant::production && mask_side > max_ladder_mask_side)
    throw std::invalid_argument(std::string(who) + ": the textbook rungs take sides up to " +
                                std::to_string(max_ladder_mask_side));
  if (variant == convolution2d_variant::production)
    return ::lookback::convolve2d(d_in, width, d_out, width, height, width, h_mask, mask_side, mask_side,
                                  boundary::zero, stream);
  if (height == 0 || width == 0) return;
  if (variant == convolution2d_variant::basic) {
    const dim3 grid(static_cast<unsigned>(ceil_div(width, 16)), static_cast<unsigned>(lookback::detail::grid_rows(height, 16)));
    conv2d_basic<<<grid, dim3(16, 16), 0, stream>>>(d_in, d_mask, d_out, mask_side, height, width);
  } else {
    if (upload == mask_upload::each_call) set_constant_mask(h_mask, mask_side * mask_side, stream);
    const int in_tile = conv2d_output_tile + mask_side - 1;
    const dim3 grid(static_cast<unsigned>(ceil_div(width, conv2d_output_tile)),
                    static_cast<unsigned>(lookback::detail::grid_rows(height, conv2d_output_tile)));
    conv2d_tiled<<<grid, dim3(in_tile, in_tile), 0, stream>>>(d_in, d_out, mask_side, height, width);
  }
  LOOKBACK_CUDA_TRY(cudaGetLastError());
}

}  // namespace
}  // namespace lookback::ladder
