// Every instantiation of lookback::convolve2d and lookback::summed_area_table that the image commands
// use, and the box filter's one kernel over a table, compiled once.
#include "typed/box_mean.hpp"
#include "typed/image_ops.hpp"
#include "typed/image_visit.hpp"

#include <lookback/algorithms/summed_area_table.cuh>
#include <lookback/primitives/convolution.cuh>
#include <lookback/primitives/detail/device_limits.cuh>
#include <lookback/primitives/error.cuh>

#include <algorithm>

namespace lookback::typed {
namespace {

template <class Acc, class Out>
__global__ void box_mean_kernel(const Acc* table, Out* out, int height, int width, int radius) {
  const int c = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (c >= width) return;
  // Rows stride by the grid: its y extent stops at 65535 blocks.
  for (int r = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y); r < height;
       r += static_cast<int>(gridDim.y * blockDim.y))
    out[static_cast<std::int64_t>(r) * width + c] = static_cast<Out>(box_mean_at(table, height, width, r, c, radius));
}

}  // namespace

void convolve2d_gpu(io::dtype type, const void* d_in, void* d_out, int height, int width, const mask_view& mask,
                    boundary b, cudaStream_t stream) {
  visit_filter_type(type, [&](auto zero) {
    using T = decltype(zero);
    lookback::convolve2d(static_cast<const T*>(d_in), width, static_cast<T*>(d_out), width, height, width,
                         static_cast<const T*>(mask.taps), mask.height, mask.width, b, stream);
  });
}

void summed_area_table_gpu(io::dtype in, io::dtype acc, const void* d_in, void* d_table, int height, int width,
                           void* d_temp, std::size_t temp_bytes, cudaStream_t stream) {
  visit_table_input(in, acc, [&](auto in_zero, auto acc_zero) {
    using In = decltype(in_zero);
    using Acc = decltype(acc_zero);
    lookback::summed_area_table(d_temp, temp_bytes, static_cast<const In*>(d_in), width, static_cast<Acc*>(d_table),
                                width, height, width, stream);
  });
}

std::size_t summed_area_table_temp_bytes(io::dtype acc, int height, int width) {
  std::size_t bytes = 0;
  visit_accumulator(acc, [&](auto zero) {
    using Acc = decltype(zero);
    lookback::summed_area_table(nullptr, bytes, static_cast<const Acc*>(nullptr), width, static_cast<Acc*>(nullptr),
                                width, height, width, cudaStream_t{});
  });
  return bytes;
}

void box_mean_gpu(io::dtype acc, io::dtype out_type, const void* d_table, void* d_out, int height, int width,
                  int radius, cudaStream_t stream) {
  if (height == 0 || width == 0) return;
  visit_accumulator(acc, [&](auto acc_zero) {
    using Acc = decltype(acc_zero);
    visit_filter_type(out_type, [&](auto out_zero) {
      using Out = decltype(out_zero);
      const dim3 block(32, 8);
      const dim3 grid((width + 31) / 32, lookback::detail::grid_rows(height, 8));
      box_mean_kernel<<<grid, block, 0, stream>>>(static_cast<const Acc*>(d_table), static_cast<Out*>(d_out), height,
                                                  width, radius);
      LOOKBACK_CUDA_TRY(cudaGetLastError());
    });
  });
}

}  // namespace lookback::typed
