#pragma once
// Stream compaction: select_if (a predicate), select_flagged (a flag array, nonzero keeps) and
// partition (kept items first, in input order, then the rejected ones from the end backwards, as
// cub::DevicePartition::If places them). Kept items keep their input order. One pass with decoupled
// look-back (select/select_kernel.cuh), or, on Hopper and later, on the scan's look-ahead pipeline
// (select/select_lookahead_kernel.cuh); arrays of up to 4 MiB in two kernels that count, then compact
// (select/select_kernel.cuh). The number kept goes to device memory, so nothing here synchronises the
// host (selected_count reads it back).
//
// Value types: any trivially copyable type of 1, 2, 4, 8 or 16 bytes. Temporary storage as in CUB
// (null pointer first), or from a stream-ordered allocator in the overloads without it. The output
// must not overlap the input.
#include <lookback/algorithms/select/select_kernel.cuh>
#include <lookback/algorithms/select/select_lookahead.cuh>
#include <lookback/algorithms/select/select_policy.cuh>
#include <lookback/algorithms/select/selectors.cuh>
#include <lookback/primitives/allocator.cuh>
#include <lookback/primitives/detail/clear_then_launch.cuh>
#include <lookback/primitives/detail/dependent_launch.cuh>
#include <lookback/primitives/detail/size_policy.cuh>
#include <lookback/primitives/detail/temp_layout.cuh>
#include <lookback/primitives/device_buffer.cuh>
#include <lookback/primitives/error.cuh>
#include <lookback/primitives/thread/vector16.cuh>
#include <lookback/primitives/tile/tile_status.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace lookback {
namespace select::detail {

template <class T>
inline constexpr bool selectable =
    std::is_trivially_copyable_v<T> && (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 ||
                                        sizeof(T) == 16);

/// Nothing to select: the count is zero.
inline void select_nothing(std::int64_t* d_num_selected, cudaStream_t stream) {
  LOOKBACK_CUDA_TRY(cudaMemsetAsync(d_num_selected, 0, sizeof(std::int64_t), stream));
}

/// The small arrays' temporary storage: each tile's count.
template <class Policy>
lookback::detail::temp_layout count_then_compact_layout(std::int64_t num_items) {
  return lookback::detail::temp_layout{static_cast<std::size_t>(lookback::detail::tile_count<Policy>(num_items)) *
                                      sizeof(device::count_t)};
}

/// Small arrays' compaction in two kernels with Policy's tiles (select/select_kernel.cuh): each tile's
/// count, then the tiles compacted at the offsets the counts before them give. No storage to clear.
template <class Policy, bool Partition, class T, class Selector>
void count_then_compact(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_in, Selector selector,
                        T* d_out, std::int64_t* d_num_selected, std::int64_t num_items, cudaStream_t stream) {
  static_assert(selectable<T>, "compaction takes trivially copyable values of 1, 2, 4, 8 or 16 bytes");
  using device::count_t;
  lookback::detail::check_item_count(num_items, "lookback::select");
  const lookback::detail::temp_layout layout = count_then_compact_layout<Policy>(num_items);
  if (layout.answer_query(d_temp_storage, temp_storage_bytes, "lookback::select")) return;
  if (num_items == 0) return select_nothing(d_num_selected, stream);
  count_t* const d_counts = layout.part<count_t>(d_temp_storage, 0);
  const auto grid = static_cast<unsigned>(lookback::detail::tile_count<Policy>(num_items));
  device::count_kept_kernel<Policy><<<grid, Policy::threads, 0, stream>>>(d_in, selector, num_items, d_counts,
                                                                        thread::aligned16(d_in));
  LOOKBACK_CUDA_TRY(cudaGetLastError());
  lookback::detail::launch_dependent(device::compact_after_counts_kernel<Policy, Partition, T, Selector>, dim3(grid),
                                     dim3(Policy::threads), 0, stream, d_in, selector, d_out, d_num_selected,
                                     num_items, static_cast<const count_t*>(d_counts), thread::aligned16(d_in),
                                     thread::aligned16(d_out));
}

/// The compaction with an explicit tuning policy (the benchmarks compare policies through it).
template <class Policy, bool Partition, class T, class Selector>
void run_with_policy(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_in, Selector selector,
                     T* d_out, std::int64_t* d_num_selected, std::int64_t num_items, cudaStream_t stream) {
  static_assert(selectable<T>, "compaction takes trivially copyable values of 1, 2, 4, 8 or 16 bytes");
  using status_array = tile::status_array<device::count_t>;
  lookback::detail::check_item_count(num_items, "lookback::select");
  const std::int64_t tiles = lookback::detail::tile_count<Policy>(num_items);
  const lookback::detail::temp_layout layout{sizeof(unsigned), status_array::bytes_for(tiles)};
  if (layout.answer_query(d_temp_storage, temp_storage_bytes, "lookback::select")) return;
  if (num_items == 0) return select_nothing(d_num_selected, stream);
  // Tile counter and descriptors start at zero ("not ready") for every launch.
  lookback::detail::clear_then_launch(
      layout, d_temp_storage, device::select_kernel<Policy, Partition, T, Selector, status_array>,
      dim3(static_cast<unsigned>(tiles)), dim3(Policy::threads), 0, stream, d_in, selector, d_out, d_num_selected,
      num_items, status_array(layout.part(d_temp_storage, 1), tiles), layout.part<unsigned>(d_temp_storage, 0),
      thread::aligned16(d_in), thread::aligned16(d_out));
}

/// The largest temporary storage the small arrays' two kernels need, at either tile size's largest count.
template <class Sized>
std::size_t small_arrays_largest_temp() {
  using policies = policy::select<Sized>;
  constexpr auto width = static_cast<std::int64_t>(sizeof(Sized));
  using small_tiles = typename policies::count_then_compact_small;
  using large_tiles = typename policies::count_then_compact;
  return std::max(count_then_compact_layout<small_tiles>(policies::count_then_compact_small_max_bytes / width).total(),
                  count_then_compact_layout<large_tiles>(policies::count_then_compact_max_bytes / width).total());
}

/// The compaction on the path its size (and, past the small arrays, its arrays' alignment) picks.
template <bool Partition, class Sized, class T, class Selector>
void run_by_size(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_in, Selector selector,
                 T* d_out, std::int64_t* d_num_selected, std::int64_t num_items, cudaStream_t stream) {
  using policies = policy::select<Sized>;
  constexpr auto width = static_cast<std::int64_t>(sizeof(Sized));
  if (num_items <= policies::count_then_compact_max_bytes / width) {
    const auto counted = [&](auto tiles) {
      count_then_compact<decltype(tiles), Partition>(d_temp_storage, temp_storage_bytes, d_in, selector, d_out,
                                                     d_num_selected, num_items, stream);
    };
    if (num_items <= policies::count_then_compact_small_max_bytes / width)
      counted(typename policies::count_then_compact_small{});
    else
      counted(typename policies::count_then_compact{});
    return;
  }
  const auto look_back = [&](void* d_temp, std::size_t& bytes) {
    lookback::detail::with_size_policy<policies>(num_items, [&](auto policy) {
      run_with_policy<decltype(policy), Partition>(d_temp, bytes, d_in, selector, d_out, d_num_selected, num_items,
                                                   stream);
    });
  };
  if constexpr (lookahead_candidate<T>) {
    // Whether the pipelined kernel with this policy answered the query or ran.
    const auto pipelined_run = [&](auto pipelined_policy) {
      using pipelined = decltype(pipelined_policy);
      // A query answers for either kernel, so that its answer holds whichever the call then takes.
      const lookback::detail::temp_layout layout = select_lookahead_layout<pipelined>(num_items);
      if (d_temp_storage == nullptr) {
        look_back(nullptr, temp_storage_bytes);
        temp_storage_bytes = std::max(temp_storage_bytes, layout.total());
        return true;
      }
      if (!select_lookahead_applies<pipelined, Partition>(d_in, selector, d_out)) return false;
      layout.answer_query(d_temp_storage, temp_storage_bytes, "lookback::select");
      select_lookahead<pipelined, Partition>(d_temp_storage, d_in, selector, d_out, d_num_selected, num_items, 0,
                                             stream);
      return true;
    };
    if (pipelined_run(select_lookahead_policy<policies, Partition, Selector>{})) return;
  }
  look_back(d_temp_storage, temp_storage_bytes);
}

/// Tiles sized for the wider of the values and the flags (Sized), which share the staging: small arrays
/// in two kernels; past them, on Hopper and later, the pipelined kernel where it applies, else the
/// look-back. As the scan's (scan.cuh), no answer to a query is smaller than the small arrays' largest
/// need, so that storage sized for a large call serves any smaller one.
template <bool Partition, class Sized, class T, class Selector>
void run(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_in, Selector selector, T* d_out,
         std::int64_t* d_num_selected, std::int64_t num_items, cudaStream_t stream) {
  if (d_temp_storage != nullptr) {  // a size query may leave the arrays null
    lookback::detail::check_array(d_in, num_items, "lookback::select", "d_in");
    lookback::detail::check_array(d_out, num_items, "lookback::select", "d_out");
    lookback::detail::check_array(d_num_selected, 1, "lookback::select", "d_num_selected");
    // Tiles store while later tiles still load: an output over the input (or the flags) would overwrite
    // items unread.
    lookback::detail::refuse_overlap(d_in, d_out, num_items, "lookback::select", "d_in and d_out");
    using flags = device::staged_flags<Selector>;
    if constexpr (flags::present)
      lookback::detail::refuse_overlap(flags::source(selector), d_out, num_items, "lookback::select", "d_flags and d_out");
  }
  run_by_size<Partition, Sized>(d_temp_storage, temp_storage_bytes, d_in, selector, d_out, d_num_selected, num_items,
                                stream);
  if (d_temp_storage == nullptr) temp_storage_bytes = std::max(temp_storage_bytes, small_arrays_largest_temp<Sized>());
}

template <class Flag>
select::flags_selector<Flag> flags(const Flag* d_flags) {
  return {d_flags, thread::aligned16(d_flags)};
}

}  // namespace select::detail

/// Copies the items for which pred(item) is true to d_out, in order; *d_num_selected = their count.
template <class T, class Pred>
void select_if(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_in, T* d_out,
               std::int64_t* d_num_selected, std::int64_t num_items, Pred pred, cudaStream_t stream = nullptr) {
  select::detail::run<false, T>(d_temp_storage, temp_storage_bytes, d_in, select::predicate_selector<Pred>{pred}, d_out,
                             d_num_selected, num_items, stream);
}

/// Copies the items whose flag is nonzero to d_out, in order; *d_num_selected = their count.
template <class T, class Flag>
void select_flagged(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_in, const Flag* d_flags,
                    T* d_out, std::int64_t* d_num_selected, std::int64_t num_items, cudaStream_t stream = nullptr) {
  if (d_temp_storage != nullptr) lookback::detail::check_array(d_flags, num_items, "lookback::select", "d_flags");
  select::detail::run<false, std::conditional_t<(sizeof(Flag) > sizeof(T)), Flag, T>>(
      d_temp_storage, temp_storage_bytes, d_in, select::detail::flags(d_flags), d_out,
                             d_num_selected, num_items, stream);
}

/// All num_items items to d_out: those for which pred is true first, in order (*d_num_selected of
/// them), then the others in reverse order from the end.
template <class T, class Pred>
void partition(void* d_temp_storage, std::size_t& temp_storage_bytes, const T* d_in, T* d_out,
               std::int64_t* d_num_selected, std::int64_t num_items, Pred pred, cudaStream_t stream = nullptr) {
  select::detail::run<true, T>(d_temp_storage, temp_storage_bytes, d_in, select::predicate_selector<Pred>{pred}, d_out,
                            d_num_selected, num_items, stream);
}

template <class T, class Pred, class Allocator = stream_allocator>
void select_if(const T* d_in, T* d_out, std::int64_t* d_num_selected, std::int64_t num_items, Pred pred,
               cudaStream_t stream = nullptr, Allocator alloc = {}) {
  detail::with_temp_storage(alloc, stream, [&](void* d_temp, std::size_t& bytes) {
    select_if(d_temp, bytes, d_in, d_out, d_num_selected, num_items, pred, stream);
  });
}

template <class T, class Flag, class Allocator = stream_allocator>
void select_flagged(const T* d_in, const Flag* d_flags, T* d_out, std::int64_t* d_num_selected,
                    std::int64_t num_items, cudaStream_t stream = nullptr, Allocator alloc = {}) {
  detail::with_temp_storage(alloc, stream, [&](void* d_temp, std::size_t& bytes) {
    select_flagged(d_temp, bytes, d_in, d_flags, d_out, d_num_selected, num_items, stream);
  });
}

template <class T, class Pred, class Allocator = stream_allocator>
void partition(const T* d_in, T* d_out, std::int64_t* d_num_selected, std::int64_t num_items, Pred pred,
               cudaStream_t stream = nullptr, Allocator alloc = {}) {
  detail::with_temp_storage(alloc, stream, [&](void* d_temp, std::size_t& bytes) {
    partition(d_temp, bytes, d_in, d_out, d_num_selected, num_items, pred, stream);
  });
}

/// Reads a count the compaction left in device memory, waiting for `stream`: the compaction's own (a
/// default would be the legacy stream, which this library's non-blocking streams do not wait for).
[[nodiscard]] inline std::int64_t selected_count(const std::int64_t* d_num_selected, cudaStream_t stream) {
  std::int64_t count = 0;
  LOOKBACK_CUDA_TRY(cudaMemcpyAsync(&count, d_num_selected, sizeof(count), cudaMemcpyDeviceToHost, stream));
  LOOKBACK_CUDA_TRY(cudaStreamSynchronize(stream));
  return count;
}

}  // namespace lookback
