#pragma once
// Launches the pipelined scan of device/scan_lookahead_kernel.cuh; detail::scan picks it where it
// applies (scan.cuh).
#include <lookback/primitives/detail/device_limits.cuh>
#include <lookback/primitives/detail/temp_layout.cuh>
#include <lookback/primitives/device/scan_lookahead_kernel.cuh>
#include <lookback/primitives/error.cuh>
#include <lookback/primitives/scan_carry.cuh>
#include <lookback/primitives/thread/vector16.cuh>
#include <lookback/primitives/tile/tile_status.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace lookback::detail {

template <class Policy, class T>
using lookahead_status_array = tile::status_array<T, tile::default_descriptor<T>>;

template <class Policy, bool Exclusive, class T, class Init, class Op>
inline constexpr auto scan_lookahead_kernel_for =
    device::scan_lookahead_kernel<Policy, Exclusive, T, Init, Op, lookahead_status_array<Policy, T>>;

template <class Policy, class T>
constexpr int lookahead_shared_bytes() {
  return Policy::stages * Policy::tile_items * static_cast<int>(sizeof(T));
}

/// Whether the pipelined scan can run these arrays on the current device: compiled for it, 16-byte
/// aligned, and its stages fit a block's shared memory.
template <class Policy, bool Exclusive, class T, class Init, class Op>
bool scan_lookahead_applies(const T* d_in, const T* d_out) {
  const auto kernel = scan_lookahead_kernel_for<Policy, Exclusive, T, Init, Op>;
  return thread::aligned16(d_in) && thread::aligned16(d_out) && compiled_for_hopper(kernel) &&
         fits_dynamic_shared_memory(kernel, lookahead_shared_bytes<Policy, T>());
}

template <class Policy, class T>
temp_layout scan_lookahead_layout(std::int64_t num_items) {
  const std::int64_t tiles = (num_items + Policy::tile_items - 1) / Policy::tile_items;
  return temp_layout{sizeof(unsigned), lookahead_status_array<Policy, T>::bytes_for(tiles)};
}

/// Runs the pipelined scan of num_items > 0 items, where scan_lookahead_applies, in temporary storage
/// of scan_lookahead_layout's size; `max_blocks` > 0 caps the grid (tests use it to make few blocks go
/// round their stages many times).
template <class Policy, bool Exclusive, class T, class Init, class Op>
void scan_lookahead(void* d_temp_storage, const T* d_in, T* d_out, Init init, Op op, std::int64_t num_items,
                    int max_blocks, cudaStream_t stream) {
  const std::int64_t tiles = (num_items + Policy::tile_items - 1) / Policy::tile_items;
  const temp_layout layout = scan_lookahead_layout<Policy, T>(num_items);
  LOOKBACK_CUDA_TRY(cudaMemsetAsync(d_temp_storage, 0, layout.total(), stream));
  const auto kernel = scan_lookahead_kernel_for<Policy, Exclusive, T, Init, Op>;
  constexpr int shared_bytes = lookahead_shared_bytes<Policy, T>();
  std::int64_t grid = std::min<std::int64_t>(tiles, resident_blocks(kernel, Policy::threads, shared_bytes));
  if (max_blocks > 0) grid = std::min<std::int64_t>(grid, max_blocks);
  kernel<<<static_cast<unsigned>(grid), Policy::threads, shared_bytes, stream>>>(
      d_in, d_out, num_items, op, init, lookahead_status_array<Policy, T>(layout.part(d_temp_storage, 1), tiles),
      layout.part<unsigned>(d_temp_storage, 0));
  LOOKBACK_CUDA_TRY(cudaGetLastError());
}

}  // namespace lookback::detail
