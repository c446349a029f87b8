#pragma once
// 2D convolution for masks whose size is known at compile time (the common 3x3, 5x5, 7x7). The tiled
// kernel reads a whole window from shared memory for every output: mask_height * mask_width loads
// each, which at 5x5 makes shared memory, not DRAM, the limit. Here each thread computes a column of
// RowsPerThread outputs and walks the staged rows once: a staged row is loaded into registers a single
// time and feeds every output row whose window covers it, so an output costs
// (RowsPerThread + mask_height - 1) * mask_width / RowsPerThread loads instead of mask_height * mask_width.
#include <lookback/primitives/convolution/boundary.cuh>

#include <cstdint>

namespace lookback::convolution::device {

/// Stages in(row0 .., col0 ..) into `staged` (StagedH x StagedW), the boundary policy applied only
/// when the tile reaches past an edge. Inside the image, and with rows that start on 16 bytes, the
/// rows move as 16-byte vectors: a quarter of the load instructions for float.
template <int Threads, int StagedH, int StagedW, class T>
__device__ __forceinline__ void stage_tile2d(T (&staged)[StagedH][StagedW], const T* d_in, std::int64_t in_pitch,
                                             int height, int width, int row0, int col0, bool rows_aligned, boundary b,
                                             int thread) {
  constexpr int per_vector = 16 / sizeof(T);
  const bool inside = row0 >= 0 && col0 >= 0 && row0 + StagedH <= height && col0 + StagedW <= width;
  if (inside && rows_aligned && StagedW % per_vector == 0) {
    constexpr int vectors = StagedW / per_vector;
    const T* origin = d_in + static_cast<std::int64_t>(row0) * in_pitch + col0;
#pragma unroll 4
    for (int k = thread; k < StagedH * vectors; k += Threads) {
      const int sr = k / vectors;  // a compile-time divisor: a multiply and a shift
      const int sv = k - sr * vectors;
      *reinterpret_cast<uint4*>(&staged[sr][sv * per_vector]) =
          __ldg(reinterpret_cast<const uint4*>(origin + static_cast<std::int64_t>(sr) * in_pitch) + sv);
    }
  } else if (inside) {
    const T* origin = d_in + static_cast<std::int64_t>(row0) * in_pitch + col0;
#pragma unroll 4
    for (int k = thread; k < StagedH * StagedW; k += Threads) {
      const int sr = k / StagedW;
      const int sc = k - sr * StagedW;
      staged[sr][sc] = origin[static_cast<std::int64_t>(sr) * in_pitch + sc];
    }
  } else {
    for (int k = thread; k < StagedH * StagedW; k += Threads) {
      const int sr = k / StagedW;
      const int sc = k - sr * StagedW;
      const std::int64_t r = source_index(row0 + sr, height, b);
      const std::int64_t c = source_index(col0 + sc, width, b);
      staged[sr][sc] = (r < 0 || c < 0) ? T{0} : d_in[r * in_pitch + c];
    }
  }
}

/// out(r, c) = sum_{a < MaskH, b < MaskW} in(r - MaskH/2 + a, c - MaskW/2 + b) * mask[a * MaskW + b];
/// the same sums in the same order as tiled_convolution2d_kernel.
template <class Policy, int MaskH, int MaskW, class T, class Mask>
__global__ void __launch_bounds__(Policy::block_x * Policy::block_y)
    blocked_convolution2d_kernel(const T* d_in, std::int64_t in_pitch, T* d_out, std::int64_t out_pitch, int height,
                                 int width, Mask mask, boundary b) {
  constexpr int rows = Policy::rows_per_thread;
  // The left and right halos are padded to whole 16-byte vectors, so that a row of the tile starts
  // on 16 bytes wherever the image's rows do (the tile width is a multiple of the vector).
  constexpr int per_vector = 16 / sizeof(T);
  constexpr int pad = (MaskW / 2 + per_vector - 1) / per_vector * per_vector;
  static_assert(Policy::tile_width % per_vector == 0, "tiles a whole number of vectors wide");
  constexpr int staged_h = Policy::tile_height + MaskH - 1;
  constexpr int staged_w = Policy::tile_width + 2 * pad;
  __shared__ alignas(16) T staged[staged_h][staged_w];
  const int first_col = static_cast<int>(blockIdx.x) * Policy::tile_width;
  const int tx = static_cast<int>(threadIdx.x);
  const int ty = static_cast<int>(threadIdx.y);
  const int col = first_col + tx;
  const bool rows_aligned = in_pitch % per_vector == 0 && reinterpret_cast<std::uintptr_t>(d_in) % 16 == 0;
  // Tiles of rows stride by the grid: its y dimension (at most 65535 blocks) need not cover the image.
  const int row_tiles = (height + Policy::tile_height - 1) / Policy::tile_height;
  for (int tile_y = static_cast<int>(blockIdx.y); tile_y < row_tiles; tile_y += static_cast<int>(gridDim.y)) {
    const int first_row = tile_y * Policy::tile_height;
    if (tile_y != static_cast<int>(blockIdx.y)) __syncthreads();  // every read of the last tile done
    stage_tile2d<Policy::block_x * Policy::block_y>(staged, d_in, in_pitch, height, width, first_row - MaskH / 2,
                                                     first_col - pad, rows_aligned, b, ty * Policy::block_x + tx);
    __syncthreads();

    T acc[rows];
#pragma unroll
    for (int o = 0; o < rows; ++o) acc[o] = T{0};
#pragma unroll
    for (int s = 0; s < rows + MaskH - 1; ++s) {
      T v[MaskW];
#pragma unroll
      for (int c = 0; c < MaskW; ++c) v[c] = staged[ty * rows + s][tx + pad - MaskW / 2 + c];
      // Staged row s is row a of the window of output row s - a.
#pragma unroll
      for (int a = 0; a < MaskH; ++a) {
        if (s - a < 0 || s - a >= rows) continue;
#pragma unroll
        for (int c = 0; c < MaskW; ++c) acc[s - a] += v[c] * mask[a * MaskW + c];
      }
    }
    if (col >= width) continue;
#pragma unroll
    for (int o = 0; o < rows; ++o) {
      const int row = first_row + ty * rows + o;
      if (row < height) d_out[static_cast<std::int64_t>(row) * out_pitch + col] = acc[o];
    }
  }
}

}  // namespace lookback::convolution::device
