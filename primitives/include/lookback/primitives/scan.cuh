#pragma once
// Device-wide exclusive and inclusive scans in a single pass with decoupled look-back.
//
// Two-phase temporary storage as in CUB: call once with d_temp_storage == nullptr to learn
// temp_storage_bytes, then again with that much device memory. The overloads without temporary
// storage take it from a stream-ordered allocator. Nothing here synchronises the host; the input and
// output may be the same array (in place).
#include <lookback/primitives/allocator.cuh>
#include <lookback/primitives/detail/temp_layout.cuh>
#include <lookback/primitives/device/scan_kernel.cuh>
#include <lookback/primitives/error.cuh>
#include <lookback/primitives/policy/scan_policy.cuh>
#include <lookback/primitives/tile/tile_status.cuh>

#include <cstddef>
#include <cstdint>
#include <iterator>

namespace lookback {
namespace detail {

/// The scan with an explicit tuning policy (the benchmarks compare policies through it).
template <class Policy, bool Exclusive, class InputIt, class OutputIt, class T, class Op>
void scan_with_policy(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, OutputIt d_out, T init,
                      Op op, std::int64_t num_items, cudaStream_t stream) {
  using status_array = tile::status_array<T, Policy::descriptor>;
  check_item_count(num_items, "lookback::scan");
  const std::int64_t tiles = (num_items + Policy::tile_items - 1) / Policy::tile_items;
  const temp_layout layout{sizeof(unsigned), status_array::bytes_for(tiles)};
  if (layout.answer_query(d_temp_storage, temp_storage_bytes, "lookback::scan") || num_items == 0) return;

  bool aligned = false;
  if constexpr (thread::vectorizable<InputIt, T> && thread::vectorizable<OutputIt, T>)
    aligned = thread::aligned16(d_in) && thread::aligned16(d_out);
  // Tile counter and descriptors start at zero ("not ready") for every launch.
  LOOKBACK_CUDA_TRY(cudaMemsetAsync(d_temp_storage, 0, layout.total(), stream));
  device::single_pass_scan_kernel<Policy, Exclusive><<<static_cast<unsigned>(tiles), Policy::threads, 0, stream>>>(
      d_in, d_out, num_items, op, init, status_array(layout.part(d_temp_storage, 1), tiles),
      static_cast<unsigned*>(layout.part(d_temp_storage, 0)), aligned);
  LOOKBACK_CUDA_TRY(cudaGetLastError());
}

template <bool Exclusive, class InputIt, class OutputIt, class T, class Op>
void scan(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, OutputIt d_out, T init, Op op,
          std::int64_t num_items, cudaStream_t stream) {
  scan_with_policy<policy::scan<T>, Exclusive>(d_temp_storage, temp_storage_bytes, d_in, d_out, init, op, num_items,
                                               stream);
}

template <class InputIt>
using input_value_t = typename std::iterator_traits<InputIt>::value_type;

}  // namespace detail

/// out[i] = init op in[0] op ... op in[i-1]
template <class InputIt, class OutputIt, class T, class Op>
void exclusive_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, OutputIt d_out, T init,
                    Op op, std::int64_t num_items, cudaStream_t stream = nullptr) {
  detail::scan<true>(d_temp_storage, temp_storage_bytes, d_in, d_out, init, op, num_items, stream);
}

/// out[i] = in[0] op ... op in[i]
template <class InputIt, class OutputIt, class Op>
void inclusive_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, OutputIt d_out, Op op,
                    std::int64_t num_items, cudaStream_t stream = nullptr) {
  using T = detail::input_value_t<InputIt>;
  detail::scan<false>(d_temp_storage, temp_storage_bytes, d_in, d_out, identity_of<T>(op), op, num_items, stream);
}

template <class InputIt, class OutputIt, class T, class Op, class Allocator = stream_allocator>
void exclusive_scan(InputIt d_in, OutputIt d_out, T init, Op op, std::int64_t num_items,
                    cudaStream_t stream = nullptr, Allocator alloc = {}) {
  detail::with_temp_storage(alloc, stream, [&](void* d_temp, std::size_t& bytes) {
    exclusive_scan(d_temp, bytes, d_in, d_out, init, op, num_items, stream);
  });
}

template <class InputIt, class OutputIt, class Op, class Allocator = stream_allocator>
void inclusive_scan(InputIt d_in, OutputIt d_out, Op op, std::int64_t num_items, cudaStream_t stream = nullptr,
                    Allocator alloc = {}) {
  detail::with_temp_storage(alloc, stream, [&](void* d_temp, std::size_t& bytes) {
    inclusive_scan(d_temp, bytes, d_in, d_out, op, num_items, stream);
  });
}

}  // namespace lookback
