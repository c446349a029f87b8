#pragma once
// Summed-area table kernels: inclusive prefix sums along every row (a block walks its row in tiles
// with our block scan, carrying the running total from tile to tile), then down every column in place,
// with a decoupled look-back chain per column between tiles of rows.
#include <lookback/primitives/block/block_scan.cuh>
#include <lookback/primitives/block/warp_transpose_io.cuh>
#include <lookback/primitives/operators.cuh>
#include <lookback/primitives/tile/chained_lookback.cuh>
#include <lookback/primitives/tile/tile_id.cuh>

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

/// The column pass in one read and one write of the table: a tile is 32 columns by
/// Policy::column_chunk rows; its threads (32 columns x column_groups) each scan column_rows rows in
/// registers, the tile's column totals go down a look-back chain per column (tile/chained_lookback),
/// and every cell gets its tile's prefix from above. Tile ids come from `d_tile_counter`, row chunk
/// by row chunk, so the chunk above is always running. d_table holds the row prefix sums and receives
/// the table.
template <class Policy, class Acc, class StatusArray>
__global__ void __launch_bounds__(32 * Policy::column_groups)
    column_lookback_kernel(Acc* d_table, std::int64_t pitch, int height, int width, StatusArray chains,
                           unsigned* d_tile_counter) {
  constexpr int groups = Policy::column_groups;
  constexpr int rows = Policy::column_rows;
  __shared__ Acc group_total[groups][32];
  __shared__ Acc tile_prefix[32];
  __shared__ unsigned tile_id;
  const int strips = (width + 31) / 32;
  const std::int64_t tile = lookback::tile::acquire_tile(d_tile_counter, tile_id);
  const int chunk = static_cast<int>(tile / strips);
  const int strip = static_cast<int>(tile - std::int64_t{chunk} * strips);
  const int x = static_cast<int>(threadIdx.x);
  const int g = static_cast<int>(threadIdx.y);
  const int col = strip * 32 + x;
  const int first_row = chunk * groups * rows + g * rows;

  Acc v[rows];
#pragma unroll
  for (int i = 0; i < rows; ++i) {
    const int r = first_row + i;
    v[i] = col < width && r < height ? d_table[static_cast<std::int64_t>(r) * pitch + col] : Acc{0};
    if (i > 0) v[i] += v[i - 1];
  }
  group_total[g][x] = v[rows - 1];
  __syncthreads();
  if (g == 0) {
    Acc aggregate{0};
#pragma unroll
    for (int k = 0; k < groups; ++k) aggregate += group_total[k][x];
    const std::int64_t chain = std::int64_t{strip} * 32 + x;
    const std::int64_t chain_count = std::int64_t{strips} * 32;
    lookback::tile::publish_chain_aggregate(chains, chunk, chain, chain_count, aggregate);
    tile_prefix[x] = lookback::tile::chain_exclusive_prefix<Policy::initial_delay_ns>(chains, chunk, chain, chain_count,
                                                                                      aggregate, sum{}, Acc{0});
  }
  __syncthreads();
  Acc offset = tile_prefix[x];
  for (int k = 0; k < g; ++k) offset += group_total[k][x];
  if (col >= width) return;
#pragma unroll
  for (int i = 0; i < rows; ++i) {
    const int r = first_row + i;
    if (r < height) d_table[static_cast<std::int64_t>(r) * pitch + col] = v[i] + offset;
  }
}

}  // namespace lookback::summed_area::device
