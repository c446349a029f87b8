#pragma once
// Stable LSD radix sort, keys only or key-value pairs, ascending or descending, over an optional bit
// range [begin_bit, end_bit) of the keys' order-preserving bit patterns (radix_sort/key_bits.cuh): the
// same order as cub::DeviceRadixSort. Onesweep (Adinets & Merrill 2022): one read of the keys counts
// the digits of every 8-bit pass, then one kernel per pass ranks, looks back and scatters. Passes whose
// digit is the same in every key are skipped, decided on the device (radix_sort/pass_plan.cuh), so
// nothing here synchronises the host.
//
// Two forms, with CUB's two-phase temporary storage (null pointer first):
//  - separate input and output: the input is left alone, and the temporary storage holds a third
//    buffer of keys (and values);
//  - double_buffer: the keys (and values) in `current` are sorted using `alternate` as the other
//    buffer, and current() names the result afterwards: memory is the two buffers plus small scratch.
// Up to 2^32 - 1 items.
#include <lookback/algorithms/radix_sort/key_bits.cuh>
#include <lookback/algorithms/radix_sort/onesweep_kernel.cuh>
#include <lookback/algorithms/radix_sort/pass_plan.cuh>
#include <lookback/algorithms/radix_sort/radix_sort_policy.cuh>
#include <lookback/primitives/detail/clear_then_launch.cuh>
#include <lookback/primitives/detail/dependent_launch.cuh>
#include <lookback/primitives/detail/device_limits.cuh>
#include <lookback/primitives/detail/size_policy.cuh>
#include <lookback/primitives/detail/temp_layout.cuh>
#include <lookback/primitives/error.cuh>
#include <lookback/primitives/thread/vector16.cuh>
#include <lookback/primitives/tile/tile_status.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace lookback {

/// A pair of device buffers of which one, current(), holds the data.
template <class T>
struct double_buffer {
  T* buffers[2] = {nullptr, nullptr};
  int selector = 0;
  double_buffer() = default;
  double_buffer(T* d_current, T* d_alternate) : buffers{d_current, d_alternate} {}
  [[nodiscard]] T* current() const { return buffers[selector]; }
  [[nodiscard]] T* alternate() const { return buffers[selector ^ 1]; }
};

namespace radix::detail {

inline int pass_count(int begin_bit, int end_bit) { return (end_bit - begin_bit + radix_bits - 1) / radix_bits; }

template <class Key>
void check_arguments(std::int64_t n, int begin_bit, int end_bit) {
  lookback::detail::check_item_count(n, "lookback::radix_sort");
  if (n > static_cast<std::int64_t>(std::numeric_limits<unsigned>::max()))
    throw std::invalid_argument("lookback::radix_sort: at most 2^32 - 1 items, not " + std::to_string(n));
  constexpr int key_bits = 8 * static_cast<int>(sizeof(Key));
  if (begin_bit < 0 || end_bit > key_bits || begin_bit >= end_bit)
    throw std::invalid_argument("lookback::radix_sort: bit range [" + std::to_string(begin_bit) + ", " +
                                std::to_string(end_bit) + ") is not inside the key's " + std::to_string(key_bits) +
                                " bits");
}

/// The up-front histogram (pass_plan.cuh). Copied counters (digit_counters.cuh) take up to 64 KiB a
/// block beside the kernel's few hundred static bytes: where a block cannot have that (Turing, 64 KiB
/// in all) or an SM then holds fewer than two blocks (100 KiB an SM), it counts with a single copy.
template <class HistogramPolicy, class Key, bool Descending>
void launch_digit_histogram(const Key* d_keys, std::int64_t n, int begin_bit, int end_bit, int passes,
                            sort_counters* d_counters, std::size_t cleared_bytes, const sort_buffers& buffers,
                            pass_plan* d_plan, cudaStream_t stream) {
  const auto histogram = digit_histogram_kernel<HistogramPolicy, Key, Descending>;
  const int shared_bytes = histogram_counters<HistogramPolicy, Key>::dynamic_shared_bytes(passes);
  if constexpr (HistogramPolicy::lane_copies != 0) {
    if (!lookback::detail::fits_dynamic_shared_memory(histogram, shared_bytes) ||
        lookback::detail::blocks_per_sm(histogram, HistogramPolicy::threads, shared_bytes) < 2)
      return launch_digit_histogram<typename HistogramPolicy::single_copy, Key, Descending>(
          d_keys, n, begin_bit, end_bit, passes, d_counters, cleared_bytes, buffers, d_plan, stream);
  }
  const std::int64_t per_block =
      std::int64_t{HistogramPolicy::threads} * HistogramPolicy::vectors_in_flight * thread::vector16<Key>::size;
  const int blocks = static_cast<int>(std::clamp<std::int64_t>(
      (n + per_block - 1) / per_block, 1,
      lookback::detail::resident_blocks(histogram, HistogramPolicy::threads, shared_bytes)));
  // The counters and descriptors (cleared_bytes from d_counters) are cleared by a kernel the histogram
  // launches dependent on: it counts in shared memory while they clear.
  lookback::detail::clear_then_launch(d_counters, cleared_bytes, histogram, dim3(static_cast<unsigned>(blocks)),
                                      dim3(HistogramPolicy::threads), static_cast<std::size_t>(shared_bytes), stream,
                                      d_keys, n, thread::aligned16(d_keys), begin_bit, end_bit, passes, d_counters,
                                      buffers, d_plan);
}

/// Sorts with an explicit histogram and pass policy; `buffers` as in pass_plan.cuh. With
/// spare_in_temp (the separate-buffer form) the temporary storage's last parts are the spare buffers of
/// n keys and values. One kernel clearing the counters and descriptors, the histogram (which plans the
/// passes in its last block) and one kernel a pass, each launched dependent on the kernel before it:
/// nothing else is launched.
/// Descriptors are sized for at least `min_tiles` tiles (see sort_with_policy).
template <class HistogramPolicy, class PassPolicy, class Key, class Value, bool Descending>
void sort_with_passes(void* d_temp_storage, std::size_t& temp_storage_bytes, sort_buffers buffers, std::int64_t n,
                      int begin_bit, int end_bit, bool spare_in_temp, cudaStream_t stream, std::int64_t min_tiles = 1) {
  static_assert(sortable_key<Key>, "keys: uint8, uint16, uint32, int32, float, uint64, int64 or double");
  constexpr bool has_values = !std::is_same_v<Value, no_value>;
  static_assert(!has_values || sizeof(Value) == 4 || sizeof(Value) == 8, "values of 4 or 8 bytes");
  using status_array = tile::status_array<unsigned>;
  check_arguments<Key>(n, begin_bit, end_bit);
  const int passes = pass_count(begin_bit, end_bit);
  const std::int64_t tiles = std::max<std::int64_t>(1, (n + PassPolicy::tile_items - 1) / PassPolicy::tile_items);
  const std::size_t spare = spare_in_temp ? static_cast<std::size_t>(n) : 0;
  // The counters and the tiles' descriptors first, next to each other, so that one clearing kernel zeroes both.
  const std::int64_t descriptor_tiles = std::max(tiles, min_tiles);
  const lookback::detail::temp_layout layout{sizeof(sort_counters), status_array::bytes_for(descriptor_tiles * radix_digits),
                                             sizeof(pass_plan), spare * sizeof(Key),
                                             has_values ? spare * sizeof(Value) : 0};
  if (layout.answer_query(d_temp_storage, temp_storage_bytes, "lookback::radix_sort") || n == 0) return;
  if (spare_in_temp) {
    buffers.keys_other = layout.part(d_temp_storage, 3);
    if (has_values) buffers.values_other = layout.part(d_temp_storage, 4);
  }
  auto* d_counters = layout.part<sort_counters>(d_temp_storage, 0);
  void* d_status = layout.part(d_temp_storage, 1);
  auto* d_plan = layout.part<pass_plan>(d_temp_storage, 2);
  const auto onesweep_pass = onesweep_kernel<PassPolicy, Key, Value, Descending, status_array>;
  constexpr int shared_bytes = sizeof(onesweep_storage<PassPolicy, Key, Value>);
  // Cached per kernel and device: the limit raised past 48 KiB, and the L1 the passes were measured with.
  // Before anything is launched, so that a device whose blocks cannot hold a pass's tile refuses the
  // sort with nothing enqueued.
  try {
    lookback::detail::prefer_carveout_for_occupancy(onesweep_pass, PassPolicy::threads, shared_bytes);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("lookback::radix_sort: ") + e.what());
  }
  // Descriptors start "not ready" for every pass: zeroed once, then each pass publishes under its own
  // epoch (a reset a pass cost 25 us each at 2^28 keys on an H100).
  const auto cleared = static_cast<std::size_t>(layout.part<char>(d_temp_storage, 2) - layout.part<char>(d_temp_storage, 0));
  launch_digit_histogram<HistogramPolicy, Key, Descending>(static_cast<const Key*>(buffers.keys_in), n, begin_bit,
                                                           end_bit, passes, d_counters, cleared, buffers, d_plan,
                                                           stream);

  for (int p = 0; p < passes; ++p) {
    const status_array status(d_status, tiles * radix_digits, static_cast<unsigned>(p));
    lookback::detail::launch_dependent(onesweep_pass, dim3(static_cast<unsigned>(tiles)), dim3(PassPolicy::threads),
                                       shared_bytes, stream, d_plan, p, n, pass_shift(p, begin_bit),
                                       pass_width(p, begin_bit, end_bit), d_counters, status);
  }
}

/// Sorts with the policy's small or large passes, chosen by n. The large passes size their
/// descriptors for at least as many tiles as the small ones take at their largest n, so that the
/// temporary size never shrinks as n grows: callers (the streamed and external sorts) size one
/// allocation for their largest chunk and reuse it for smaller ones.
template <class Policy, class Key, class Value, bool Descending>
void sort_with_policy(void* d_temp_storage, std::size_t& temp_storage_bytes, sort_buffers buffers,
                      std::int64_t n, int begin_bit, int end_bit, bool spare_in_temp, cudaStream_t stream) {
  constexpr std::int64_t small_tile = Policy::small::onesweep::tile_items;
  constexpr std::int64_t small_max_tiles = (Policy::small_max_items + small_tile - 1) / small_tile;
  lookback::detail::with_size_policy<Policy>(n, [&](auto passes) {
    using chosen = decltype(passes);
    sort_with_passes<typename chosen::histogram, typename chosen::onesweep, Key, Value, Descending>(
        d_temp_storage, temp_storage_bytes, buffers, n, begin_bit, end_bit, spare_in_temp, stream,
        std::is_same_v<chosen, typename Policy::large> ? small_max_tiles : 1);
  });
}

template <bool Descending, class Key, class Value>
void sort_separate(void* d_temp_storage, std::size_t& temp_storage_bytes, const Key* d_keys_in, Key* d_keys_out,
                   const Value* d_values_in, Value* d_values_out, std::int64_t n, int begin_bit, int end_bit,
                   cudaStream_t stream) {
  check_arguments<Key>(n, begin_bit, end_bit);
  if (d_temp_storage != nullptr) {  // a size query may leave the arrays null
    constexpr const char* who = "lookback::radix_sort";
    lookback::detail::check_array(d_keys_in, n, who, "d_keys_in");
    lookback::detail::check_array(d_keys_out, n, who, "d_keys_out");
    if constexpr (!std::is_same_v<Value, no_value>) {
      lookback::detail::check_array(d_values_in, n, who, "d_values_in");
      lookback::detail::check_array(d_values_out, n, who, "d_values_out");
      lookback::detail::refuse_overlap(d_values_in, d_values_out, n, who, "d_values_in and d_values_out");
    }
    lookback::detail::refuse_overlap(d_keys_in, d_keys_out, n, who, "d_keys_in and d_keys_out");
  }
  const sort_buffers buffers{d_keys_in, d_keys_out, nullptr, d_values_in, d_values_out, nullptr, false};
  sort_with_policy<policy::radix_sort<Key, Value>, Key, Value, Descending>(d_temp_storage, temp_storage_bytes, buffers, n,
                                                                    begin_bit, end_bit, true, stream);
}

template <bool Descending, class Key, class Value>
void sort_double(void* d_temp_storage, std::size_t& temp_storage_bytes, double_buffer<Key>& keys,
                 double_buffer<Value>* values, std::int64_t n, int begin_bit, int end_bit, cudaStream_t stream) {
  check_arguments<Key>(n, begin_bit, end_bit);
  // The host knows how many passes there are but not which the device skips: the result goes where
  // running them all would leave it, a skipped pass copying instead when skipping left it elsewhere.
  const int flip = pass_count(begin_bit, end_bit) % 2;
  if (d_temp_storage != nullptr) {
    constexpr const char* who = "lookback::radix_sort";
    for (Key* const buffer : keys.buffers) lookback::detail::check_array(buffer, n, who, "a key buffer");
    if (values) {
      for (Value* const buffer : values->buffers) lookback::detail::check_array(buffer, n, who, "a value buffer");
      lookback::detail::refuse_overlap(values->buffers[0], values->buffers[1], n, who, "the two value buffers");
    }
    lookback::detail::refuse_overlap(keys.buffers[0], keys.buffers[1], n, who, "the two key buffers");
  }
  const sort_buffers buffers{keys.current(),
                             keys.buffers[keys.selector ^ flip],
                             keys.alternate(),
                             values ? values->current() : nullptr,
                             values ? values->buffers[values->selector ^ flip] : nullptr,
                             values ? values->alternate() : nullptr,
                             true};
  sort_with_policy<policy::radix_sort<Key, Value>, Key, Value, Descending>(d_temp_storage, temp_storage_bytes, buffers, n,
                                                                    begin_bit, end_bit, false, stream);
  if (d_temp_storage != nullptr) {
    keys.selector ^= flip;
    if (values) values->selector ^= flip;
  }
}

}  // namespace radix::detail

template <class Key>
void radix_sort_keys(void* d_temp_storage, std::size_t& temp_storage_bytes, const Key* d_keys_in, Key* d_keys_out,
                     std::int64_t n, int begin_bit = 0, int end_bit = 8 * sizeof(Key), cudaStream_t stream = nullptr) {
  radix::detail::sort_separate<false, Key, radix::no_value>(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out,
                                                            nullptr, nullptr, n, begin_bit, end_bit, stream);
}

template <class Key>
void radix_sort_keys_descending(void* d_temp_storage, std::size_t& temp_storage_bytes, const Key* d_keys_in,
                                Key* d_keys_out, std::int64_t n, int begin_bit = 0, int end_bit = 8 * sizeof(Key),
                                cudaStream_t stream = nullptr) {
  radix::detail::sort_separate<true, Key, radix::no_value>(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out,
                                                           nullptr, nullptr, n, begin_bit, end_bit, stream);
}

template <class Key, class Value>
void radix_sort_pairs(void* d_temp_storage, std::size_t& temp_storage_bytes, const Key* d_keys_in, Key* d_keys_out,
                      const Value* d_values_in, Value* d_values_out, std::int64_t n, int begin_bit = 0,
                      int end_bit = 8 * sizeof(Key), cudaStream_t stream = nullptr) {
  radix::detail::sort_separate<false>(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out, d_values_in,
                                      d_values_out, n, begin_bit, end_bit, stream);
}

template <class Key, class Value>
void radix_sort_pairs_descending(void* d_temp_storage, std::size_t& temp_storage_bytes, const Key* d_keys_in,
                                 Key* d_keys_out, const Value* d_values_in, Value* d_values_out, std::int64_t n,
                                 int begin_bit = 0, int end_bit = 8 * sizeof(Key), cudaStream_t stream = nullptr) {
  radix::detail::sort_separate<true>(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out, d_values_in,
                                     d_values_out, n, begin_bit, end_bit, stream);
}

/// Double-buffer forms: keys.current() (and values->current()) name the sorted data afterwards.
template <class Key>
void radix_sort_keys(void* d_temp_storage, std::size_t& temp_storage_bytes, double_buffer<Key>& keys, std::int64_t n,
                     int begin_bit = 0, int end_bit = 8 * sizeof(Key), cudaStream_t stream = nullptr) {
  radix::detail::sort_double<false, Key, radix::no_value>(d_temp_storage, temp_storage_bytes, keys, nullptr, n,
                                                          begin_bit, end_bit, stream);
}

template <class Key, class Value>
void radix_sort_pairs(void* d_temp_storage, std::size_t& temp_storage_bytes, double_buffer<Key>& keys,
                      double_buffer<Value>& values, std::int64_t n, int begin_bit = 0, int end_bit = 8 * sizeof(Key),
                      cudaStream_t stream = nullptr) {
  radix::detail::sort_double<false>(d_temp_storage, temp_storage_bytes, keys, &values, n, begin_bit, end_bit, stream);
}

}  // namespace lookback
