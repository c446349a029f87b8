#pragma once
// Launches the scan of small arrays as two kernels (device/reduce_then_scan_kernels.cuh): detail::scan
// takes it up to policy::scan<T>::reduce_then_scan_max_bytes (scan.cuh).
#include <lookback/primitives/detail/dependent_launch.cuh>
#include <lookback/primitives/detail/temp_layout.cuh>
#include <lookback/primitives/device/reduce_then_scan_kernels.cuh>
#include <lookback/primitives/error.cuh>
#include <lookback/primitives/scan_carry.cuh>
#include <lookback/primitives/thread/vector16.cuh>

#include <cstddef>
#include <cstdint>

namespace lookback::detail {

/// An empty chunk passes its carried prefix through unchanged (where a total is asked for); a plain
/// scan of nothing does nothing.
template <class Init>
void pass_prefix_through(const Init& init, cudaStream_t stream) {
  if constexpr (is_carried<Init>)
    if (init.d_total != nullptr)
      LOOKBACK_CUDA_TRY(cudaMemcpyAsync(init.d_total, init.d_prefix, sizeof(init_value_t<Init>),
                                        cudaMemcpyDeviceToDevice, stream));
}

/// The tiles' aggregates.
template <class Policy, class T>
temp_layout reduce_then_scan_layout(std::int64_t num_items) {
  return temp_layout{static_cast<std::size_t>(tile_count<Policy>(num_items)) * sizeof(T)};
}

/// The scan in two kernels and tiles of Policy (two-phase temporary storage as every scan here).
template <class Policy, bool Exclusive, class InputIt, class OutputIt, class Init, class Op>
void scan_reduce_then_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, OutputIt d_out,
                           Init init, Op op, std::int64_t num_items, cudaStream_t stream) {
  using T = init_value_t<Init>;
  check_item_count(num_items, "lookback::scan");
  const temp_layout layout = reduce_then_scan_layout<Policy, T>(num_items);
  if (layout.answer_query(d_temp_storage, temp_storage_bytes, "lookback::scan")) return;
  if (num_items == 0) return pass_prefix_through(init, stream);

  T* const d_aggregates = layout.part<T>(d_temp_storage, 0);
  const auto tiles = static_cast<unsigned>(tile_count<Policy>(num_items));
  const bool vectors = thread::vector_tiles<T>(d_in, d_out);
  device::tile_aggregates_kernel<Policy><<<tiles, Policy::threads, 0, stream>>>(d_in, num_items, op, d_aggregates,
                                                                              vectors);
  LOOKBACK_CUDA_TRY(cudaGetLastError());
  launch_dependent(device::scan_from_aggregates_kernel<Policy, Exclusive, InputIt, OutputIt, Init, Op>, dim3(tiles),
                   dim3(Policy::threads), 0, stream, d_in, d_out, num_items, op, init,
                   static_cast<const T*>(d_aggregates), vectors);
}

}  // namespace lookback::detail
