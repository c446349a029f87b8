#pragma once
// 2D filtering and summed-area tables of one image plane (dense, row-major, height x width) for element
// types known only at run time: lookback::convolve2d and lookback::summed_area_table on the GPU (every
// instantiation compiled once, in image_lookback.cu), and the CPU references. The device functions are
// stream-ordered and never synchronise the host.
#include "io/dtype.hpp"

#include <lookback/primitives/convolution/boundary.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace lookback::typed {

/// Filters compute in float32 or float64; the mask (height x width, odd sides) is in host memory, of `type`.
bool is_filter_type(io::dtype type);
/// Summed-area tables accumulate in uint32, uint64, float32 or float64 (from a plane of that type, or
/// of uint8 or uint16).
bool is_accumulator(io::dtype type);

struct mask_view {
  const void* taps = nullptr;  // mask_height * mask_width elements of the plane's type
  int height = 1;
  int width = 1;
};

void convolve2d_gpu(io::dtype type, const void* d_in, void* d_out, int height, int width, const mask_view& mask,
                    boundary b, cudaStream_t stream);
/// The type a table of `acc` reads pixels of type `pixels` in: uint8 and uint16 as they are, others
/// converted to the accumulator.
io::dtype table_input_type(io::dtype pixels, io::dtype acc);
/// The table of a plane of type `in` (table_input_type) in the accumulator `acc`.
void summed_area_table_gpu(io::dtype in, io::dtype acc, const void* d_in, void* d_table, int height, int width,
                           void* d_temp, std::size_t temp_bytes, cudaStream_t stream);
/// The temporary storage summed_area_table_gpu takes for a height x width table.
std::size_t summed_area_table_temp_bytes(io::dtype acc, int height, int width);
/// out(r, c) = the sum of the (2 radius + 1)^2 window about (r, c), zeros past the edges, divided by
/// (2 radius + 1)^2: from the table (accumulator `acc`) in O(1) a pixel, written as `out_type` (a filter type).
void box_mean_gpu(io::dtype acc, io::dtype out_type, const void* d_table, void* d_out, int height, int width,
                  int radius, cudaStream_t stream);

/// The CPU references: the filter in long double rounded once to `type`, the table in the accumulator
/// (wrapping as the GPU's integer tables do), and the box means from a table as the GPU computes them.
void convolve2d_cpu(io::dtype type, const void* in, void* out, int height, int width, const mask_view& mask,
                    boundary b);
void summed_area_table_cpu(io::dtype in, io::dtype acc, const void* plane, void* table, int height, int width);
void box_mean_cpu(io::dtype acc, io::dtype out_type, const void* table, void* out, int height, int width, int radius);

}  // namespace lookback::typed
