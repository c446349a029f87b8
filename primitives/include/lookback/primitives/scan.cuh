#pragma once
// Device-wide exclusive and inclusive scans in a single pass with decoupled look-back; on Hopper and
// later, large arrays of 4- and 8-byte items take the pipelined scan (device/scan_lookahead_kernel.cuh),
// whose tiles learn their prefix by a running look-ahead instead. Arrays small enough to stay in L2
// take two kernels that need no clearing (device/reduce_then_scan_kernels.cuh).
//
// Two-phase temporary storage as in CUB: call once with d_temp_storage == nullptr to learn
// temp_storage_bytes, then again with that much device memory. The overloads without temporary
// storage take it from a stream-ordered allocator. Nothing here synchronises the host; the input and
// output may be the same array (in place).
#include <lookback/primitives/allocator.cuh>
#include <lookback/primitives/detail/clear_then_launch.cuh>
#include <lookback/primitives/detail/device_limits.cuh>
#include <lookback/primitives/detail/scan_lookahead.cuh>
#include <lookback/primitives/detail/scan_reduce_then_scan.cuh>
#include <lookback/primitives/detail/size_policy.cuh>
#include <lookback/primitives/detail/temp_layout.cuh>
#include <lookback/primitives/device/scan_kernel.cuh>
#include <lookback/primitives/error.cuh>
#include <lookback/primitives/policy/scan_policy.cuh>
#include <lookback/primitives/scan_carry.cuh>
#include <lookback/primitives/tile/tile_status.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <stdexcept>

namespace lookback {
namespace detail {

/// The scan with an explicit tuning policy (the benchmarks compare policies through it). `init` is a
/// value, or a carried<T> prefix in device memory (a plain inclusive scan passes the identity).
template <class Policy, bool Exclusive, class InputIt, class OutputIt, class Init, class Op>
void scan_with_policy(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, OutputIt d_out, Init init,
                      Op op, std::int64_t num_items, cudaStream_t stream) {
  using T = init_value_t<Init>;
  using status_array = tile::status_array<T, Policy::descriptor>;
  check_item_count(num_items, "lookback::scan");
  const std::int64_t tiles = tile_count<Policy>(num_items);
  const temp_layout layout{sizeof(unsigned), status_array::bytes_for(tiles)};
  if (layout.answer_query(d_temp_storage, temp_storage_bytes, "lookback::scan")) return;
  if (num_items == 0) return pass_prefix_through(init, stream);

  const bool aligned = thread::vector_tiles<T>(d_in, d_out);
  const auto kernel = device::single_pass_scan_kernel<Policy, Exclusive, InputIt, OutputIt, Init, Op, status_array>;
  if constexpr (Policy::min_blocks > 0) prefer_shared_memory(kernel);
  // Tile counter and descriptors start at zero ("not ready") for every launch.
  clear_then_launch(layout, d_temp_storage, kernel, dim3(static_cast<unsigned>(tiles)), dim3(Policy::threads),
                    0, stream, d_in, d_out, num_items, op, init, status_array(layout.part(d_temp_storage, 1), tiles),
                    static_cast<unsigned*>(layout.part(d_temp_storage, 0)), aligned);
}

template <class T>
std::int64_t small_array_max_items() {
  return policy::scan<T>::reduce_then_scan_max_bytes / static_cast<std::int64_t>(sizeof(T));
}

/// The scan on the path its size (and, past the small arrays, its arrays' alignment) picks.
template <bool Exclusive, class InputIt, class OutputIt, class Init, class Op>
void scan_by_size(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, OutputIt d_out, Init init,
                  Op op, std::int64_t num_items, cudaStream_t stream) {
  using T = init_value_t<Init>;
  using policies = policy::scan<T>;
  if (num_items <= small_array_max_items<T>()) {
    scan_reduce_then_scan<typename policies::reduce_then_scan, Exclusive>(d_temp_storage, temp_storage_bytes, d_in,
                                                                         d_out, init, op, num_items, stream);
    return;
  }
  const auto look_back = [&](void* d_temp, std::size_t& bytes) {
    with_size_policy<policy::scan<T>>(num_items, [&](auto policy) {
      scan_with_policy<decltype(policy), Exclusive>(d_temp, bytes, d_in, d_out, init, op, num_items, stream);
    });
  };
  if constexpr (lookahead_candidate<InputIt, OutputIt, T>) {
    // Whether the pipelined policy took the call (or answered its query).
    const auto pipelined = [&](auto policy) {
      using chosen = decltype(policy);
      // A query answers for either kernel, so that its answer holds whichever the call then takes.
      const temp_layout layout = scan_lookahead_layout<chosen, T>(num_items);
      if (d_temp_storage == nullptr) {
        look_back(nullptr, temp_storage_bytes);
        temp_storage_bytes = std::max(temp_storage_bytes, layout.total());
        return true;
      }
      if (!scan_lookahead_applies<chosen, Exclusive, T, Init, Op>(d_in, d_out)) return false;
      layout.answer_query(d_temp_storage, temp_storage_bytes, "lookback::scan");
      scan_lookahead<chosen, Exclusive>(d_temp_storage, d_in, d_out, init, op, num_items, 0, stream);
      return true;
    };
    if (num_items <= policies::lookahead_small_max_items ? pipelined(typename policies::lookahead_small{})
                                                         : pipelined(typename policies::lookahead{}))
      return;
  }
  look_back(d_temp_storage, temp_storage_bytes);
}

/// A caller may size temporary storage once for its largest call and reuse it for smaller ones (the
/// streamed scan's last chunk), so no answer to a query is smaller than the small arrays' largest need,
/// which exceeds what the larger paths need just past them.
template <bool Exclusive, class InputIt, class OutputIt, class Init, class Op>
void scan(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, OutputIt d_out, Init init, Op op,
          std::int64_t num_items, cudaStream_t stream) {
  using T = init_value_t<Init>;
  if (d_temp_storage != nullptr) {  // a size query may leave the arrays null
    if constexpr (is_carried<Init>)
    {
      if (init.d_prefix == nullptr)
        throw std::invalid_argument("lookback::scan: a carried prefix needs its d_prefix in device memory, not null");
      refuse_shared_carry_slot(init, "lookback::scan");
    }
    check_array(d_in, num_items, "lookback::scan", "d_in");
    check_array(d_out, num_items, "lookback::scan", "d_out");
  }
  scan_by_size<Exclusive>(d_temp_storage, temp_storage_bytes, d_in, d_out, init, op, num_items, stream);
  if (d_temp_storage == nullptr) {
    const temp_layout small = reduce_then_scan_layout<typename policy::scan<T>::reduce_then_scan, T>(
        small_array_max_items<T>());
    temp_storage_bytes = std::max(temp_storage_bytes, small.total());
  }
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
  detail::scan<false>(d_temp_storage, temp_storage_bytes, d_in, d_out, neutral_of<T>(op), op, num_items, stream);
}

/// One chunk of a longer sequence: out[i] = *carry.d_prefix op in[0] op ... op in[i-1], and
/// *carry.d_total = *carry.d_prefix op in[0] op ... op in[n-1] (scan_carry.cuh).
template <class InputIt, class OutputIt, class T, class Op>
void exclusive_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, OutputIt d_out,
                    carried<T> carry, Op op, std::int64_t num_items, cudaStream_t stream = nullptr) {
  detail::scan<true>(d_temp_storage, temp_storage_bytes, d_in, d_out, carry, op, num_items, stream);
}

/// One chunk of a longer sequence: out[i] = *carry.d_prefix op in[0] op ... op in[i], and the total as
/// the exclusive form leaves it.
template <class InputIt, class OutputIt, class T, class Op>
void inclusive_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, OutputIt d_out,
                    carried<T> carry, Op op, std::int64_t num_items, cudaStream_t stream = nullptr) {
  detail::scan<false>(d_temp_storage, temp_storage_bytes, d_in, d_out, carry, op, num_items, stream);
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
