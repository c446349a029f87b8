#pragma once
// Launches the scans on the look-ahead pipeline (device/lookahead_pipeline.cuh): the default scan of
// device/scan_lookahead_kernel.cuh, which detail::scan picks where it applies (scan.cuh), and the
// deterministic scan and reduction of device/deterministic_scan_lookahead_kernel.cuh and
// device/deterministic_reduce_lookahead_kernel.cuh (deterministic_scan.cuh).
#include <lookback/primitives/detail/clear_then_launch.cuh>
#include <lookback/primitives/detail/device_limits.cuh>
#include <lookback/primitives/detail/temp_layout.cuh>
#include <lookback/primitives/device/deterministic_reduce_lookahead_kernel.cuh>
#include <lookback/primitives/device/deterministic_scan_lookahead_kernel.cuh>
#include <lookback/primitives/device/scan_lookahead_kernel.cuh>
#include <lookback/primitives/error.cuh>
#include <lookback/primitives/scan_carry.cuh>
#include <lookback/primitives/thread/vector16.cuh>
#include <lookback/primitives/tile/tile_status.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace lookback::detail {

/// Whether a pipelined scan may take these arguments: arrays of T in, T out, of a width it was
/// measured on.
template <class InputIt, class OutputIt, class T>
inline constexpr bool lookahead_candidate =
    std::is_pointer_v<InputIt> && std::is_same_v<std::remove_cv_t<std::remove_pointer_t<InputIt>>, T> &&
    std::is_same_v<OutputIt, T*> && (sizeof(T) == 4 || sizeof(T) == 8) && std::is_trivially_copyable_v<T>;

template <class T>
using lookahead_status_array = tile::status_array<T, tile::default_descriptor<T>>;

/// A pipelined scan's dynamic shared memory: its stages, each a tile of T.
template <class Policy, class T>
constexpr int lookahead_shared_bytes() {
  return Policy::stages * Policy::tile_items * static_cast<int>(sizeof(T));
}

/// Whether a pipelined kernel can run these arrays on the current device: compiled for it, 16-byte
/// aligned, and its stages fit a block's shared memory.
template <class Policy, class T, class Kernel>
bool lookahead_applies(Kernel kernel, const T* d_in, const T* d_out) {
  return thread::aligned16(d_in) && thread::aligned16(d_out) && compiled_for_hopper(kernel) &&
         fits_dynamic_shared_memory(kernel, lookahead_shared_bytes<Policy, T>());
}

/// One block an SM, at most one a tile, and at most `max_blocks` when that is positive (tests use it
/// to make few blocks go round their stages many times).
template <class Policy, class Kernel>
unsigned lookahead_grid(Kernel kernel, std::int64_t num_items, int shared_bytes, int max_blocks) {
  std::int64_t grid = std::min<std::int64_t>(tile_count<Policy>(num_items),
                                             resident_blocks(kernel, Policy::threads, shared_bytes));
  if (max_blocks > 0) grid = std::min<std::int64_t>(grid, max_blocks);
  return static_cast<unsigned>(grid);
}

template <class Policy, bool Exclusive, class T, class Init, class Op>
inline constexpr auto scan_lookahead_kernel_for =
    device::scan_lookahead_kernel<Policy, Exclusive, T, Init, Op, lookahead_status_array<T>>;

template <class Policy, bool Exclusive, class T, class Init, class Op>
bool scan_lookahead_applies(const T* d_in, const T* d_out) {
  return lookahead_applies<Policy>(scan_lookahead_kernel_for<Policy, Exclusive, T, Init, Op>, d_in, d_out);
}

template <class Policy, class T>
temp_layout scan_lookahead_layout(std::int64_t num_items) {
  return temp_layout{sizeof(unsigned), lookahead_status_array<T>::bytes_for(tile_count<Policy>(num_items))};
}

/// Runs the pipelined scan of num_items > 0 items, where scan_lookahead_applies, in temporary storage
/// of scan_lookahead_layout's size.
template <class Policy, bool Exclusive, class T, class Init, class Op>
void scan_lookahead(void* d_temp_storage, const T* d_in, T* d_out, Init init, Op op, std::int64_t num_items,
                    int max_blocks, cudaStream_t stream) {
  const std::int64_t tiles = tile_count<Policy>(num_items);
  const temp_layout layout = scan_lookahead_layout<Policy, T>(num_items);
  const auto kernel = scan_lookahead_kernel_for<Policy, Exclusive, T, Init, Op>;
  constexpr int shared_bytes = lookahead_shared_bytes<Policy, T>();
  const dim3 grid(lookahead_grid<Policy>(kernel, num_items, shared_bytes, max_blocks));
  const auto status = lookahead_status_array<T>(layout.part(d_temp_storage, 1), tiles);
  auto* const d_counter = layout.part<unsigned>(d_temp_storage, 0);
  clear_then_launch(layout, d_temp_storage, kernel, grid, dim3(Policy::threads), shared_bytes, stream, d_in,
                    d_out, num_items, op, init, status, d_counter);
}

template <class Policy, bool Exclusive, class T, class Init, class Op>
inline constexpr auto deterministic_scan_lookahead_kernel_for =
    device::deterministic_scan_lookahead_kernel<Policy, Exclusive, T, Init, Op, lookahead_status_array<T>>;

template <class Policy, bool Exclusive, class T, class Init, class Op>
bool deterministic_scan_lookahead_applies(const T* d_in, const T* d_out) {
  return lookahead_applies<Policy>(deterministic_scan_lookahead_kernel_for<Policy, Exclusive, T, Init, Op>, d_in,
                                   d_out);
}

/// The granules' and the windows' descriptors a deterministic tile policy (any kernel's)
/// needs for num_items items.
struct deterministic_descriptors {
  std::int64_t granules;
  std::int64_t windows;
};
template <class Policy>
deterministic_descriptors deterministic_descriptor_counts(std::int64_t num_items) {
  const std::int64_t granules = tile_count<Policy>(num_items) * Policy::granules_per_tile;
  return {granules, (granules + Policy::window_granules - 1) / Policy::window_granules};
}

/// Every deterministic kernel's temporary storage: the counter, then the granules' descriptors, then
/// the windows'.
template <class Policy, class T>
temp_layout deterministic_scan_layout(std::int64_t num_items) {
  const deterministic_descriptors d = deterministic_descriptor_counts<Policy>(num_items);
  return temp_layout{sizeof(unsigned), lookahead_status_array<T>::bytes_for(d.granules),
                     lookahead_status_array<T>::bytes_for(d.windows)};
}

/// Runs the deterministic scan of num_items > 0 items on the pipeline, where
/// deterministic_scan_lookahead_applies, in temporary storage of deterministic_scan_layout's
/// size; `d_total` (may be null) receives the total.
template <class Policy, bool Exclusive, class T, class Init, class Op>
void deterministic_scan_lookahead(void* d_temp_storage, const T* d_in, T* d_out, Init init, bool has_start, Op op,
                                  std::int64_t num_items, T* d_total, int max_blocks, cudaStream_t stream) {
  const deterministic_descriptors d = deterministic_descriptor_counts<Policy>(num_items);
  const temp_layout layout = deterministic_scan_layout<Policy, T>(num_items);
  const auto kernel = deterministic_scan_lookahead_kernel_for<Policy, Exclusive, T, Init, Op>;
  constexpr int shared_bytes = lookahead_shared_bytes<Policy, T>();
  clear_then_launch(layout, d_temp_storage, kernel,
                    dim3(lookahead_grid<Policy>(kernel, num_items, shared_bytes, max_blocks)), dim3(Policy::threads),
                    shared_bytes, stream, d_in, d_out, num_items, op, init, has_start, d_total,
                    lookahead_status_array<T>(layout.part(d_temp_storage, 1), d.granules),
                    lookahead_status_array<T>(layout.part(d_temp_storage, 2), d.windows),
                    layout.part<unsigned>(d_temp_storage, 0));
}

template <class Policy, class T, class Init, class Op>
inline constexpr auto deterministic_reduce_lookahead_kernel_for =
    device::deterministic_reduce_lookahead_kernel<Policy, T, Init, Op, lookahead_status_array<T>>;

template <class Policy, class T, class Init, class Op>
bool deterministic_reduce_lookahead_applies(const T* d_in) {
  return lookahead_applies<Policy>(deterministic_reduce_lookahead_kernel_for<Policy, T, Init, Op>, d_in,
                                   static_cast<const T*>(nullptr));
}

/// Runs the deterministic reduction of num_items > 0 items on the pipeline, where
/// deterministic_reduce_lookahead_applies, in temporary storage of deterministic_scan_layout's size;
/// `d_total` (may be null) receives the total.
template <class Policy, class T, class Init, class Op>
void deterministic_reduce_lookahead(void* d_temp_storage, const T* d_in, Init init, bool has_start, Op op,
                                    std::int64_t num_items, T* d_total, int max_blocks, cudaStream_t stream) {
  const deterministic_descriptors d = deterministic_descriptor_counts<Policy>(num_items);
  const temp_layout layout = deterministic_scan_layout<Policy, T>(num_items);
  const auto kernel = deterministic_reduce_lookahead_kernel_for<Policy, T, Init, Op>;
  constexpr int shared_bytes = lookahead_shared_bytes<Policy, T>();
  clear_then_launch(layout, d_temp_storage, kernel,
                    dim3(lookahead_grid<Policy>(kernel, num_items, shared_bytes, max_blocks)), dim3(Policy::threads),
                    shared_bytes, stream, d_in, num_items, op, init, has_start, d_total,
                    lookahead_status_array<T>(layout.part(d_temp_storage, 1), d.granules),
                    lookahead_status_array<T>(layout.part(d_temp_storage, 2), d.windows),
                    layout.part<unsigned>(d_temp_storage, 0));
}

/// Whether a deterministic policy is a pipelined one (Hopper and later), and whether it reduces only.
template <class Policy, class = void>
inline constexpr bool is_lookahead_policy = false;
template <class Policy>
inline constexpr bool is_lookahead_policy<Policy, std::void_t<decltype(Policy::role_warps)>> = true;
template <class Policy, class = void>
inline constexpr bool is_reduce_lookahead_policy = false;
template <class Policy>
inline constexpr bool is_reduce_lookahead_policy<Policy, std::void_t<decltype(Policy::reduces_only)>> = true;

/// The pipelined deterministic policy's check: the reduction's reads d_in alone, the scan's both arrays.
template <class Policy, bool Exclusive, class T, class Init, class Op>
bool deterministic_pipeline_applies(const T* d_in, const T* d_out) {
  if constexpr (is_reduce_lookahead_policy<Policy>)
    return deterministic_reduce_lookahead_applies<Policy, T, Init, Op>(d_in);
  else
    return deterministic_scan_lookahead_applies<Policy, Exclusive, T, Init, Op>(d_in, d_out);
}

/// Runs the pipelined deterministic policy's kernel, where deterministic_pipeline_applies.
template <class Policy, bool Exclusive, class T, class Init, class Op>
void deterministic_pipeline(void* d_temp_storage, const T* d_in, T* d_out, Init init, bool has_start, Op op,
                            std::int64_t num_items, T* d_total, int max_blocks, cudaStream_t stream) {
  if constexpr (is_reduce_lookahead_policy<Policy>)
    deterministic_reduce_lookahead<Policy>(d_temp_storage, d_in, init, has_start, op, num_items, d_total, max_blocks,
                                           stream);
  else
    deterministic_scan_lookahead<Policy, Exclusive>(d_temp_storage, d_in, d_out, init, has_start, op, num_items,
                                                    d_total, max_blocks, stream);
}

}  // namespace lookback::detail
