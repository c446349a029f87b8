#pragma once
// Summed-area tables (2D inclusive prefix sums): table(r, c) = sum of in(i, j) over i <= r, j <= c,
// built from our block scan along the rows, then down the columns with a decoupled look-back chain
// per column (summed_area/): one read and one write of the table each way. Any H x W image, row-major
// with pitches in elements; accumulators uint32, uint64, float or double. With the table, the sum
// over any rectangle costs four reads (box_sum), whatever its size. The column pass's few bytes of
// descriptors per 32 x 128 tile come from the stream-ordered allocator; nothing here synchronises the
// host.
#include <lookback/algorithms/summed_area/box_sum.cuh>
#include <lookback/algorithms/summed_area/summed_area_kernels.cuh>
#include <lookback/algorithms/summed_area/summed_area_policy.cuh>
#include <lookback/primitives/detail/device_limits.cuh>
#include <lookback/primitives/device_buffer.cuh>
#include <lookback/primitives/tile/tile_status.cuh>
#include <lookback/primitives/error.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <type_traits>

namespace lookback {

template <class In, class Acc>
void summed_area_table(const In* d_in, std::int64_t in_pitch, Acc* d_table, std::int64_t table_pitch, int height,
                       int width, cudaStream_t stream = nullptr) {
  static_assert(std::is_same_v<Acc, unsigned> || std::is_same_v<Acc, unsigned long long> ||
                    std::is_same_v<Acc, std::uint64_t> || std::is_same_v<Acc, float> || std::is_same_v<Acc, double>,
                "accumulators: uint32, uint64, float or double");
  using policy = policy::summed_area;
  if (height < 0 || width < 0) throw std::invalid_argument("lookback::summed_area_table: negative image size");
  if (in_pitch < width || table_pitch < width)
    throw std::invalid_argument("lookback::summed_area_table: a row pitch is smaller than the width");
  if (height == 0 || width == 0) return;
  const auto rows = summed_area::device::row_prefix_kernel<policy, In, Acc>;
  const int row_blocks = std::min(height, lookback::detail::resident_blocks(rows, policy::row_threads));
  rows<<<row_blocks, policy::row_threads, 0, stream>>>(d_in, in_pitch, d_table, table_pitch, height, width);
  LOOKBACK_CUDA_TRY(cudaGetLastError());
  using status_array = tile::status_array<Acc>;
  const std::int64_t strips = (width + 31) / 32;
  const std::int64_t chunks = (height + policy::column_chunk - 1) / policy::column_chunk;
  const std::int64_t tiles = strips * chunks;
  if (tiles > std::numeric_limits<unsigned>::max())
    throw std::invalid_argument("lookback::summed_area_table: the image has too many column tiles");
  // The tile counter, then the chains' descriptors, all zero ("not ready") before the launch.
  const std::size_t status_offset = 256;
  device_buffer<std::byte> d_scratch(status_offset + status_array::bytes_for(tiles * 32), stream);
  LOOKBACK_CUDA_TRY(cudaMemsetAsync(d_scratch.data(), 0, d_scratch.size(), stream));
  summed_area::device::column_lookback_kernel<policy, Acc>
      <<<static_cast<unsigned>(tiles), dim3(32, policy::column_groups), 0, stream>>>(
          d_table, table_pitch, height, width, status_array(d_scratch.data() + status_offset, tiles * 32),
          reinterpret_cast<unsigned*>(d_scratch.data()));
  LOOKBACK_CUDA_TRY(cudaGetLastError());
}

}  // namespace lookback
