#pragma once
// Stable radix sort of a source of any size (a file, a host array larger than the GPU, more than 2^32
// keys) into a sink, in exactly the order lookback::radix_sort_* and cub::DeviceRadixSort give: one
// in-core sort when keys, values, their sorted copies and the sort's scratch fit the device budget;
// otherwise MSD buckets through a spill area, each bucket sorted in-core (sort/msd_sort.hpp). The spill
// is the output itself when that lies in host memory, else host memory within the host budget, else an
// unlinked temporary file in options.spill_directory.
#include <lookback/algorithms/radix_sort.cuh>
#include <lookback/pipelines/sort/gpu_sort_backend.cuh>
#include <lookback/pipelines/sort/msd_sort.hpp>
#include <lookback/pipelines/stream_options.hpp>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace lookback::pipelines {

struct sort_options : stream_options {
  bool descending = false;
  int begin_bit = 0;
  int end_bit = -1;  // -1: every bit of the key
  /// Where a spill file goes when the spill does not fit the host budget; empty: $TMPDIR, else /tmp.
  std::filesystem::path spill_directory;
};

/// lookback's radix sort as a sort step (CUB's two-phase signature): keys (and values, moved as raw
/// words; null for keys only) of d_keys_in sorted on bits [begin_bit, end_bit) into d_keys_out.
template <class Key, class Value, bool Descending>
struct lookback_sort_step {
  void operator()(void* d_temp, std::size_t& temp_bytes, const Key* d_keys_in, Key* d_keys_out,
                  const void* d_values_in, void* d_values_out, std::int64_t n, int begin_bit, int end_bit,
                  cudaStream_t stream) const {
    if constexpr (std::is_same_v<Value, radix::no_value>) {
      if constexpr (Descending)
        radix_sort_keys_descending(d_temp, temp_bytes, d_keys_in, d_keys_out, n, begin_bit, end_bit, stream);
      else
        radix_sort_keys(d_temp, temp_bytes, d_keys_in, d_keys_out, n, begin_bit, end_bit, stream);
    } else {
      const auto* values_in = static_cast<const Value*>(d_values_in);
      auto* values_out = static_cast<Value*>(d_values_out);
      if constexpr (Descending)
        radix_sort_pairs_descending(d_temp, temp_bytes, d_keys_in, d_keys_out, values_in, values_out, n, begin_bit,
                                    end_bit, stream);
      else
        radix_sort_pairs(d_temp, temp_bytes, d_keys_in, d_keys_out, values_in, values_out, n, begin_bit, end_bit, stream);
    }
  }
};

namespace detail {

inline std::filesystem::path spill_directory_of(const sort_options& o) {
  return o.spill_directory.empty() ? default_spill_directory() : o.spill_directory;
}

}  // namespace detail

/// The sort with a caller's step (lookback_sort_step's signature; the direction is the template's, not
/// options.descending). values and values_out: both null for keys only.
template <class Key, bool Descending, class Step>
sort_report sort_with(source& keys, source* values, sink& keys_out, sink* values_out, const sort_options& options,
                      Step step) {
  static_assert(radix::sortable_key<Key>, "keys: uint8, uint16, uint32, int32, float, uint64, int64 or double");
  check_item_bytes(keys, sizeof(Key), "lookback::pipelines::sort", "the keys");
  if ((values == nullptr) != (values_out == nullptr))
    throw std::invalid_argument("lookback::pipelines::sort: values need values_out, and values_out values");
  const std::size_t value_bytes = values != nullptr ? values->item_bytes() : 0;
  if (values != nullptr && value_bytes != 4 && value_bytes != 8)
    throw std::invalid_argument("lookback::pipelines::sort: values of 4 or 8 bytes, not " + std::to_string(value_bytes));
  const int end_bit = options.end_bit < 0 ? 8 * static_cast<int>(sizeof(Key)) : options.end_bit;
  if (options.begin_bit < 0 || options.begin_bit >= end_bit || end_bit > 8 * static_cast<int>(sizeof(Key)))
    throw std::invalid_argument("lookback::pipelines::sort: bit range [" + std::to_string(options.begin_bit) + ", " +
                                std::to_string(end_bit) + ") is not inside the key");

  gpu_sort_backend<Key, Descending, Step> backend(value_bytes, options.begin_bit, end_bit, options, step);
  msd_settings settings;
  settings.begin_bit = options.begin_bit;
  settings.end_bit = end_bit;
  settings.key_bytes = sizeof(Key);
  settings.value_bytes = value_bytes;
  settings.host_budget = detail::resolve_budget(options).host_bytes;
  settings.spill_directory = detail::spill_directory_of(options);
  return msd_sort<decltype(backend)>(backend, settings).run(keys, values, keys_out, values_out);
}

/// Sorts the keys of `keys` into `keys_out` (ascending unless options.descending).
template <class Key>
sort_report sort_keys(source& keys, sink& keys_out, const sort_options& options = {}) {
  if (options.descending)
    return sort_with<Key, true>(keys, nullptr, keys_out, nullptr, options, lookback_sort_step<Key, radix::no_value, true>{});
  return sort_with<Key, false>(keys, nullptr, keys_out, nullptr, options, lookback_sort_step<Key, radix::no_value, false>{});
}

/// Sorts `keys` into `keys_out` and moves each value of `values` (Value: 4 or 8 bytes) with its key.
template <class Key, class Value>
sort_report sort_pairs(source& keys, source& values, sink& keys_out, sink& values_out, const sort_options& options = {}) {
  static_assert(sizeof(Value) == 4 || sizeof(Value) == 8, "values of 4 or 8 bytes");
  check_item_bytes(values, sizeof(Value), "lookback::pipelines::sort", "the values");
  if (options.descending)
    return sort_with<Key, true>(keys, &values, keys_out, &values_out, options, lookback_sort_step<Key, Value, true>{});
  return sort_with<Key, false>(keys, &values, keys_out, &values_out, options, lookback_sort_step<Key, Value, false>{});
}

}  // namespace lookback::pipelines
