#pragma once
// The summed-area table in one read and one write of the image: each tile of TH rows by TW columns
// looks back in two directions. Along its band of rows, a chain per row gives the sum of the row left
// of the tile (L); down its band of columns, a chain per column gives the table's row just above the
// tile (T). With the tile's own prefix sums, table(r, c) = T(c) + sum of L over the tile's rows up to
// r + the tile-local table(r, c).
//
// A tile publishes its row totals as soon as it has loaded, so the row chains resolve at the speed of
// a 1D look-back. Its column aggregate, the sum of the whole-row prefixes over its rows, needs its L
// and so is published only after the row look-back; the tile above it started a whole band of tiles
// earlier, so it has usually published by the time a tile asks. Tile ids come from an atomic counter,
// band by band, so both predecessors of a tile have always started.
#include <lookback/primitives/operators.cuh>
#include <lookback/primitives/tile/chained_lookback.cuh>
#include <lookback/primitives/tile/tile_id.cuh>
#include <lookback/primitives/warp/shuffle.cuh>
#include <lookback/primitives/warp/warp_scan.cuh>

#include <cstdint>

namespace lookback::summed_area::device {

template <class Policy, class Acc>
struct two_way_storage {
  static constexpr int warps = Policy::warps;
  Acc row_total[Policy::tile_rows];           // then L's prefix within its warp of row-chain threads
  Acc row_warp_total[Policy::tile_rows / 32];  // L summed over each warp of row-chain threads
  Acc column_part[warps][Policy::tile_columns];  // per warp, then exclusive over warps
  Acc column_before[Policy::tile_columns];      // T
  unsigned tile_id;
};

/// Row chains: chain (band * TH + row in tile) over tiles tx; column chains: chain (tx * TW + column in
/// tile) over bands. Each thread holds rows w * RowsPerWarp + i of its warp w, columns s * 32 + lane.
/// Heights and widths stay a tile short of 2^31 (the host checks), so cell indices fit an int.
template <class Policy, class In, class Acc, class Chains>
__global__ void __launch_bounds__(Policy::threads, Policy::min_blocks)
    two_way_lookback_kernel(const In* d_in, std::int64_t in_pitch, Acc* d_table, std::int64_t table_pitch, int height,
                            int width, std::int64_t tiles_x, std::int64_t bands, Chains rows, Chains columns,
                            unsigned* d_tile_counter) {
  constexpr int R = Policy::rows_per_warp;
  constexpr int S = Policy::segments;
  constexpr int TH = Policy::tile_rows;
  constexpr int TW = Policy::tile_columns;
  static_assert(TH % 32 == 0 && TH < Policy::threads && TW <= Policy::threads, "a thread per row and per column");
  __shared__ two_way_storage<Policy, Acc> s;

  const std::int64_t tile = tile::acquire_tile(d_tile_counter, s.tile_id);
  const std::int64_t ty = tile / tiles_x;
  const std::int64_t tx = tile - ty * tiles_x;
  const int lane = warp::lane_id();
  const int w = static_cast<int>(threadIdx.x) / 32;
  const int t = static_cast<int>(threadIdx.x);
  const int top = static_cast<int>(ty) * TH + w * R;
  const int left = static_cast<int>(tx) * TW + lane;

  Acc v[R][S];
#pragma unroll
  for (int i = 0; i < R; ++i)
#pragma unroll
    for (int k = 0; k < S; ++k) {
      const int r = top + i;
      const int c = left + k * 32;
      v[i][k] = r < height && c < width ? static_cast<Acc>(d_in[r * in_pitch + c]) : Acc{0};
    }

  // Prefix sums along each row of the tile, then down each column of the warp's rows.
#pragma unroll
  for (int i = 0; i < R; ++i) {
    Acc carry{0};
#pragma unroll
    for (int k = 0; k < S; ++k) {
      const Acc x = warp::inclusive_scan(v[i][k], sum{});
      v[i][k] = x + carry;
      carry += warp::shfl(x, 31);
    }
    if (lane == 0) s.row_total[w * R + i] = carry;
  }
#pragma unroll
  for (int k = 0; k < S; ++k) {
#pragma unroll
    for (int i = 1; i < R; ++i) v[i][k] += v[i - 1][k];
    s.column_part[w][k * 32 + lane] = v[R - 1][k];
  }
  __syncthreads();

  if (t < TH) {
    const std::int64_t chain = ty * TH + t;
    const std::int64_t chains = bands * TH;
    const Acc total = s.row_total[t];
    tile::publish_chain_aggregate(rows, tx, chain, chains, total);
    const Acc left_sum = tile::chain_exclusive_prefix<Policy::initial_delay_ns, Policy::lookback_window>(
        rows, tx, chain, chains, total, sum{}, Acc{0});
    const Acc within = warp::inclusive_scan(left_sum, sum{});
    s.row_total[t] = within;
    if (lane == 31) s.row_warp_total[t / 32] = within;
  } else {
    // Meanwhile: each column's warp parts become exclusive over warps, their sum the tile's own part
    // of the column aggregate.
    for (int c = t - TH; c < TW; c += Policy::threads - TH) {
      Acc running{0};
#pragma unroll
      for (int k = 0; k < Policy::warps; ++k) {
        const Acc part = s.column_part[k][c];
        s.column_part[k][c] = running;
        running += part;
      }
      s.column_before[c] = running;
    }
  }
  __syncthreads();

  if (t < TW) {
    Acc left_total{0};
#pragma unroll
    for (int k = 0; k < TH / 32; ++k) left_total += s.row_warp_total[k];
    const std::int64_t chain = tx * TW + t;
    const std::int64_t chains = tiles_x * TW;
    const Acc aggregate = s.column_before[t] + left_total;
    tile::publish_chain_aggregate(columns, ty, chain, chains, aggregate);
    s.column_before[t] = tile::chain_exclusive_prefix<Policy::initial_delay_ns, Policy::lookback_window>(
        columns, ty, chain, chains, aggregate, sum{}, Acc{0});
  }
  __syncthreads();

#pragma unroll
  for (int i = 0; i < R; ++i) {
    const int row_in_tile = w * R + i;
    Acc left_up_to_row = s.row_total[row_in_tile];
#pragma unroll
    for (int k = 0; k < TH / 32; ++k)
      if (k < row_in_tile / 32) left_up_to_row += s.row_warp_total[k];
    const int r = top + i;
#pragma unroll
    for (int k = 0; k < S; ++k) {
      const int c = left + k * 32;
      const int ct = k * 32 + lane;
      if (r < height && c < width)
        d_table[r * table_pitch + c] = s.column_before[ct] + left_up_to_row + s.column_part[w][ct] + v[i][k];
    }
  }
}

}  // namespace lookback::summed_area::device
