#pragma once
// Launches the pipelined compaction (select/select_lookahead_kernel.cuh), which select.cuh takes where
// it applies.
#include <lookback/algorithms/select/select_lookahead_kernel.cuh>
#include <lookback/primitives/detail/device_limits.cuh>
#include <lookback/primitives/detail/scan_lookahead.cuh>
#include <lookback/primitives/detail/temp_layout.cuh>
#include <lookback/primitives/error.cuh>
#include <lookback/primitives/thread/vector16.cuh>

#include <cstdint>
#include <type_traits>

namespace lookback::select::detail {

/// Item widths the pipelined compaction was measured on (policy::select's tiles for 4- and 8-byte
/// items; 16-byte items keep the look-back kernel).
template <class T>
inline constexpr bool lookahead_candidate = sizeof(T) == 4 || sizeof(T) == 8;

/// The pipelined policy: tiles of its own for partition, and for flags (fewer stages, so that they fit
/// beside).
template <class Policies, bool Partition, class Selector>
using select_lookahead_policy =
    std::conditional_t<Partition, typename Policies::lookahead_partition,
                       std::conditional_t<device::staged_flags<Selector>::present, typename Policies::lookahead_flags,
                                          typename Policies::lookahead>>;

template <class Policy, bool Partition, class T, class Selector>
inline constexpr auto select_lookahead_kernel_for =
    device::select_lookahead_kernel<Policy, Partition, T, Selector,
                                    lookback::detail::lookahead_status_array<device::count_t>>;

/// Shared memory a block: its stages of items (each with room to align the compacted runs), and of
/// flags where the selector has them.
template <class Policy, class T, class Selector>
constexpr int select_lookahead_shared_bytes() {
  using flags = device::staged_flags<Selector>;
  constexpr int flag_bytes = flags::present ? static_cast<int>(sizeof(typename flags::flag)) * Policy::tile_items : 0;
  return Policy::stages * (device::select_stage_items<Policy, T> * static_cast<int>(sizeof(T)) + flag_bytes);
}

template <class Policy>
lookback::detail::temp_layout select_lookahead_layout(std::int64_t num_items) {
  return lookback::detail::temp_layout{
      sizeof(unsigned), lookback::detail::lookahead_status_array<device::count_t>::bytes_for(
                            lookback::detail::tile_count<Policy>(num_items))};
}

/// Whether the pipelined kernel can run these arrays on the current device: compiled for it, input and
/// flags 16-byte aligned (the output is written item by item), its stages fitting shared memory.
template <class Policy, bool Partition, class T, class Selector>
bool select_lookahead_applies(const T* d_in, const Selector& selector, const T* d_out) {
  using flags = device::staged_flags<Selector>;
  const auto kernel = select_lookahead_kernel_for<Policy, Partition, T, Selector>;
  // The output goes out by bulk copies from its first 16-byte boundary on, which items straddle where
  // d_out is not a whole number of items from one (a T aligned below its size).
  return thread::aligned16(d_in) && (!flags::present || thread::aligned16(flags::source(selector))) &&
         reinterpret_cast<std::uintptr_t>(d_out) % sizeof(T) == 0 &&
         lookback::detail::compiled_for_hopper(kernel) &&
         lookback::detail::fits_dynamic_shared_memory(kernel, select_lookahead_shared_bytes<Policy, T, Selector>());
}

/// Runs the pipelined compaction of num_items > 0 items, where select_lookahead_applies, in temporary
/// storage of select_lookahead_layout's size; at most `max_blocks` blocks when positive (tests).
template <class Policy, bool Partition, class T, class Selector>
void select_lookahead(void* d_temp_storage, const T* d_in, Selector selector, T* d_out, std::int64_t* d_num_selected,
                      std::int64_t num_items, int max_blocks, cudaStream_t stream) {
  const std::int64_t tiles = lookback::detail::tile_count<Policy>(num_items);
  const lookback::detail::temp_layout layout = select_lookahead_layout<Policy>(num_items);
  const auto kernel = select_lookahead_kernel_for<Policy, Partition, T, Selector>;
  constexpr int shared_bytes = select_lookahead_shared_bytes<Policy, T, Selector>();
  const dim3 grid(lookback::detail::lookahead_grid<Policy>(kernel, num_items, shared_bytes, max_blocks));
  const auto status = lookback::detail::lookahead_status_array<device::count_t>(layout.part(d_temp_storage, 1), tiles);
  auto* const d_counter = layout.part<unsigned>(d_temp_storage, 0);
  lookback::detail::clear_then_launch(layout, d_temp_storage, kernel, grid, dim3(Policy::threads), shared_bytes,
                                      stream, d_in, selector, d_out, d_num_selected, num_items, status, d_counter);
}

}  // namespace lookback::select::detail
