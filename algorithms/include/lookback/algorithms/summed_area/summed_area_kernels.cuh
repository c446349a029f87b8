#pragma once
// Summed-area table kernels: inclusive prefix sums along every row (a block walks its row in tiles
// with our block scan, carrying the running total from tile to tile), then down every column (a
// block takes 32 columns; each warp row of threads sums a band of rows, the bands' totals are scanned
// in shared memory, then each band writes its prefix sums). The column pass works in place.
#include <lookback/primitives/block/block_scan.cuh>
#include <lookback/primitives/block/warp_transpose_io.cuh>
#include <lookback/primitives/operators.cuh>

#include <cstdint>

namespace lookback::summed_area::device {

template <class Policy, class In, class Acc>
__global__ void __launch_bounds__(Policy::row_threads)
    row_prefix_kernel(const In* d_in, std::int64_t in_pitch, Acc* d_out, std::int64_t out_pitch, int height,
                      int width) {
  constexpr int tile = Policy::row_threads * Policy::row_items_per_thread;
  using io = block::warp_transpose_io<Acc, Policy::row_threads, Policy::row_items_per_thread>;
  using block_scan = block::scan<Acc, Policy::row_threads>;
  __shared__ typename io::storage io_storage;
  __shared__ typename block_scan::storage scan_storage;
  for (int row = blockIdx.x; row < height; row += gridDim.x) {
    const In* in = d_in + static_cast<std::int64_t>(row) * in_pitch;
    Acc* out = d_out + static_cast<std::int64_t>(row) * out_pitch;
    Acc carry{0};
    for (int base = 0; base < width; base += tile) {
      const int valid = width - base < tile ? width - base : tile;
      Acc items[Policy::row_items_per_thread];
      io::load(in + base, valid, items, Acc{0}, io_storage);
      Acc thread_total{0};
#pragma unroll
      for (int k = 0; k < Policy::row_items_per_thread; ++k) thread_total += items[k];
      Acc block_total;
      Acc running = block_scan::exclusive(thread_total, sum{}, Acc{0}, block_total, scan_storage) + carry;
#pragma unroll
      for (int k = 0; k < Policy::row_items_per_thread; ++k) {
        running += items[k];
        items[k] = running;
      }
      io::store(out + base, valid, items, io_storage);
      carry += block_total;
      // The next tile's load and scan reuse the storage.
      __syncthreads();
    }
  }
}

/// Blocks of 32 x Policy::column_bands threads; d_table holds the row prefix sums and receives the
/// table.
template <class Policy, class Acc>
__global__ void __launch_bounds__(32 * Policy::column_bands)
    column_prefix_kernel(Acc* d_table, std::int64_t pitch, int height, int width) {
  __shared__ Acc band_total[Policy::column_bands][32];
  const int col = static_cast<int>(blockIdx.x) * 32 + static_cast<int>(threadIdx.x);
  const int band = static_cast<int>(threadIdx.y);
  const int rows_per_band = (height + Policy::column_bands - 1) / Policy::column_bands;
  const int first = band * rows_per_band;
  const int last = first + rows_per_band < height ? first + rows_per_band : height;
  Acc total{0};
  if (col < width)
    for (int r = first; r < last; ++r) total += d_table[static_cast<std::int64_t>(r) * pitch + col];
  band_total[band][threadIdx.x] = total;
  __syncthreads();
  Acc running{0};
  for (int b = 0; b < band; ++b) running += band_total[b][threadIdx.x];
  if (col >= width) return;
  for (int r = first; r < last; ++r) {
    Acc& cell = d_table[static_cast<std::int64_t>(r) * pitch + col];
    running += cell;
    cell = running;
  }
}

}  // namespace lookback::summed_area::device
