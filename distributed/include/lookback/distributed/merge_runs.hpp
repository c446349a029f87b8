#pragma once
// The distributed sort's last step: the runs a rank received, each sorted and in source-rank order,
// merged into one sorted run by rounds of pairwise stable merges (the backend's merge), neighbours
// first, so ties keep their global order. ceil(log2(runs)) passes over the data, each at about the
// speed of a copy, where sorting the runs again would take a whole radix sort.
#include <lookback/distributed/run_exchange.hpp>
#include <lookback/distributed/sort_options.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace lookback::dist {

/// The runs of keys (and values, unless Value is no_values) at `runs` merged into new buffers that
/// hold exactly the merged run. Each round writes a new buffer and frees the one it read, so a rank
/// holds at most the received buffer and one merged copy.
template <bool Descending, class Backend, class KeyBuffer, class ValueBuffer>
std::pair<KeyBuffer, ValueBuffer> merge_runs(const Backend& backend, KeyBuffer keys, ValueBuffer values,
                                             const std::vector<run_span>& runs, int begin_bit, int end_bit) {
  using key_type = std::remove_pointer_t<decltype(keys.data())>;
  using value_type = std::remove_pointer_t<decltype(values.data())>;
  constexpr bool pairs = !std::is_same_v<value_type, no_values>;
  std::vector<run_span> spans;
  std::int64_t total = 0;
  for (const run_span& run : runs)
    if (run.length > 0) {
      spans.push_back(run);
      total += run.length;
    }
  while (!(spans.size() <= 1 && static_cast<std::int64_t>(keys.size()) == total && (spans.empty() || spans[0].offset == 0))) {
    KeyBuffer out_keys = backend.template allocate<key_type>(total);
    ValueBuffer out_values = backend.template allocate<value_type>(pairs ? total : 0);
    std::vector<run_span> merged;
    std::int64_t at = 0;
    for (std::size_t i = 0; i < spans.size(); i += 2) {
      const run_span a = spans[i], b = i + 1 < spans.size() ? spans[i + 1] : run_span{a.offset + a.length, 0};
      backend.template merge<Descending>(keys.data() + a.offset, pairs ? values.data() + a.offset : nullptr, a.length,
                                         keys.data() + b.offset, pairs ? values.data() + b.offset : nullptr, b.length,
                                         out_keys.data() + at, pairs ? out_values.data() + at : nullptr, begin_bit,
                                         end_bit);
      merged.push_back({at, a.length + b.length});
      at += a.length + b.length;
    }
    keys = std::move(out_keys);  // stream-ordered on the device: freed once the merge has read it
    values = std::move(out_values);
    spans = std::move(merged);
  }
  return {std::move(keys), std::move(values)};
}

}  // namespace lookback::dist
