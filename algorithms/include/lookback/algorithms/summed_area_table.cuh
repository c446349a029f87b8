#pragma once
// Summed-area tables (2D inclusive prefix sums): table(r, c) = sum of in(i, j) over i <= r, j <= c,
// in one read of the image and one write of the table: every tile looks back along its rows and down
// its columns (summed_area/two_way_lookback_kernel.cuh). Any H x W image, row-major with pitches in
// elements; accumulators uint32, uint64, float or double. With the table, the sum over any rectangle
// costs four reads (box_sum), whatever its size. Temporary storage, two-phase as in CUB or from an
// allocator: the chains' descriptors, 8 bytes for each row and each column of every tile (16 for
// 8-byte accumulators): 4.7% of a float image's bytes. The table and the image must not overlap (the
// call does not run in place). Nothing here synchronises the host.
#include <lookback/algorithms/summed_area/box_sum.cuh>
#include <lookback/algorithms/summed_area/summed_area_policy.cuh>
#include <lookback/algorithms/summed_area/two_way_lookback_kernel.cuh>
#include <lookback/primitives/allocator.cuh>
#include <lookback/primitives/detail/argument_checks.cuh>
#include <lookback/primitives/detail/clear_then_launch.cuh>
#include <lookback/primitives/detail/temp_layout.cuh>
#include <lookback/primitives/error.cuh>
#include <lookback/primitives/tile/tile_status.cuh>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <type_traits>

namespace lookback {
namespace summed_area::detail {

/// The table with an explicit tile policy (bench/summed_area_bench.cu compares policies), CUB's
/// two-phase temporary storage: a null d_temp_storage asks for the size.
template <class Policy, class In, class Acc>
void table_with_policy(void* d_temp_storage, std::size_t& temp_storage_bytes, const In* d_in, std::int64_t in_pitch,
                       Acc* d_table, std::int64_t table_pitch, int height, int width, cudaStream_t stream) {
  if (height < 0 || width < 0) throw std::invalid_argument("lookback::summed_area_table: negative image size");
  if (in_pitch < width || table_pitch < width)
    throw std::invalid_argument("lookback::summed_area_table: a row pitch is smaller than the width");
  // Row and column indices run to a whole tile past the image in 32-bit arithmetic.
  if (height > std::numeric_limits<int>::max() - Policy::tile_rows ||
      width > std::numeric_limits<int>::max() - Policy::tile_columns)
    throw std::invalid_argument("lookback::summed_area_table: the image is within a tile of 2^31 rows or columns");
  using status_array = tile::status_array<Acc>;
  const std::int64_t tiles_x = (std::int64_t{width} + Policy::tile_columns - 1) / Policy::tile_columns;
  const std::int64_t bands = (std::int64_t{height} + Policy::tile_rows - 1) / Policy::tile_rows;
  const std::int64_t tiles = tiles_x * bands;
  if (tiles > std::numeric_limits<int>::max())
    throw std::invalid_argument("lookback::summed_area_table: the image has too many tiles");
  // The tile counter, the row chains' and the column chains' descriptors, all zero ("not ready").
  const std::int64_t row_entries = tiles * Policy::tile_rows;
  const std::int64_t column_entries = tiles * Policy::tile_columns;
  const lookback::detail::temp_layout layout{sizeof(unsigned), status_array::bytes_for(row_entries),
                                             status_array::bytes_for(column_entries)};
  if (layout.answer_query(d_temp_storage, temp_storage_bytes, "lookback::summed_area_table")) return;
  if (tiles == 0) return;
  lookback::detail::check_array(d_in, std::int64_t{height} * width, "lookback::summed_area_table", "d_in");
  lookback::detail::check_array(d_table, std::int64_t{height} * width, "lookback::summed_area_table", "d_table");
  // A tile's table cells may lie over input another tile has still to read: never in place.
  const auto extent = [&](std::int64_t pitch, std::size_t item_bytes) {
    return static_cast<std::uintptr_t>((std::int64_t{height} - 1) * pitch + width) * item_bytes;
  };
  lookback::detail::refuse_overlapping_bytes(d_in, extent(in_pitch, sizeof(In)), d_table, extent(table_pitch, sizeof(Acc)),
                                             "lookback::summed_area_table", "d_in and d_table");
  lookback::detail::clear_then_launch(
      layout, d_temp_storage, device::two_way_lookback_kernel<Policy, In, Acc, status_array>,
      dim3(static_cast<unsigned>(tiles)), dim3(Policy::threads), 0, stream, d_in, in_pitch, d_table, table_pitch, height,
      width, tiles_x, bands, status_array(layout.part(d_temp_storage, 1), row_entries),
      status_array(layout.part(d_temp_storage, 2), column_entries), layout.part<unsigned>(d_temp_storage, 0));
}

template <class Acc>
inline constexpr bool is_accumulator = std::is_same_v<Acc, unsigned> || std::is_same_v<Acc, unsigned long long> ||
                                       std::is_same_v<Acc, std::uint64_t> || std::is_same_v<Acc, float> ||
                                       std::is_same_v<Acc, double>;

}  // namespace summed_area::detail

template <class In, class Acc>
void summed_area_table(void* d_temp_storage, std::size_t& temp_storage_bytes, const In* d_in, std::int64_t in_pitch,
                       Acc* d_table, std::int64_t table_pitch, int height, int width, cudaStream_t stream = nullptr) {
  static_assert(summed_area::detail::is_accumulator<Acc>, "accumulators: uint32, uint64, float or double");
  summed_area::detail::table_with_policy<policy::summed_area<Acc>>(d_temp_storage, temp_storage_bytes, d_in, in_pitch,
                                                                   d_table, table_pitch, height, width, stream);
}

template <class In, class Acc, class Allocator = stream_allocator>
void summed_area_table(const In* d_in, std::int64_t in_pitch, Acc* d_table, std::int64_t table_pitch, int height,
                       int width, cudaStream_t stream = nullptr, Allocator alloc = {}) {
  lookback::detail::with_temp_storage(alloc, stream, [&](void* d_temp, std::size_t& bytes) {
    summed_area_table(d_temp, bytes, d_in, in_pitch, d_table, table_pitch, height, width, stream);
  });
}

}  // namespace lookback
