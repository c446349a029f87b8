#pragma once
// The distributed sort's last step: the runs a rank received, each sorted and in source-rank order,
// merged into one sorted run by rounds of pairwise stable merges (the backend's merge), neighbours
// first, so ties keep their global order. ceil(log2(runs)) passes over the data, each at the speed of
// a copy, where sorting the runs again would take a whole radix sort.
#include <lookback/distributed/sort_options.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace lookback::dist {

/// keys (and values, unless Value is no_values) hold runs of the given lengths back to back; on return
/// they hold the merged run. spare_keys and spare_values are as long: the rounds alternate between the
/// two, swapping the buffers where the last round wrote the spares.
template <bool Descending, class Backend, class KeyBuffer, class ValueBuffer>
void merge_runs(const Backend& backend, KeyBuffer& keys, KeyBuffer& spare_keys, ValueBuffer& values,
                ValueBuffer& spare_values, const std::vector<std::int64_t>& runs, int begin_bit, int end_bit) {
  using value_type = std::remove_pointer_t<decltype(values.data())>;
  constexpr bool pairs = !std::is_same_v<value_type, no_values>;
  std::vector<std::int64_t> lengths;
  for (std::int64_t run : runs)
    if (run > 0) lengths.push_back(run);
  while (lengths.size() > 1) {
    std::vector<std::int64_t> merged;
    std::int64_t at = 0;
    for (std::size_t i = 0; i < lengths.size(); i += 2) {
      const std::int64_t na = lengths[i], nb = i + 1 < lengths.size() ? lengths[i + 1] : 0;
      backend.template merge<Descending>(keys.data() + at, pairs ? values.data() + at : nullptr, na, nb,
                                         spare_keys.data() + at, pairs ? spare_values.data() + at : nullptr, begin_bit,
                                         end_bit);
      merged.push_back(na + nb);
      at += na + nb;
    }
    std::swap(keys, spare_keys);
    std::swap(values, spare_values);
    lengths = std::move(merged);
  }
}

}  // namespace lookback::dist
