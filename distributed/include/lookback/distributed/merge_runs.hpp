#pragma once
// The distributed sort's last step, one part at a time: the runs of a part (one from every rank, each
// sorted, in source-rank order) merged into that part of the rank's share by rounds of pairwise stable
// merges (the backend's merge), neighbours first, so ties keep their global order. ceil(log2(runs))
// passes over the part, each at about the speed of a copy, where sorting the runs again would take a
// whole radix sort.
#include <lookback/distributed/sort_options.hpp>

#include <cstdint>
#include <type_traits>
#include <vector>

namespace lookback::dist {

/// A sorted run of keys and their values (null for keys alone).
template <class Key, class Value>
struct run_ref {
  const Key* keys;
  const Value* values;
  std::int64_t length;
};

/// The runs merged into out_keys (and out_values, unless Value is no_values). Rounds before the last
/// write scratch buffers of the runs' total, freed stream-ordered as the next round reads on.
template <bool Descending, class Backend, class Key, class Value>
void merge_runs(const Backend& backend, std::vector<run_ref<Key, Value>> runs, Key* out_keys, Value* out_values,
                int begin_bit, int end_bit) {
  constexpr bool pairs = !std::is_same_v<Value, no_values>;
  std::vector<run_ref<Key, Value>> nonempty;
  std::int64_t total = 0;
  for (const auto& run : runs)
    if (run.length > 0) {
      nonempty.push_back(run);
      total += run.length;
    }
  runs = std::move(nonempty);
  typename Backend::template buffer<Key> keys = backend.template allocate<Key>(0);
  typename Backend::template buffer<Value> values = backend.template allocate<Value>(0);
  for (;;) {
    const bool last = runs.size() <= 2;
    auto round_keys = backend.template allocate<Key>(last ? 0 : total);
    auto round_values = backend.template allocate<Value>(last || !pairs ? 0 : total);
    Key* to_keys = last ? out_keys : round_keys.data();
    Value* to_values = last ? out_values : round_values.data();
    std::vector<run_ref<Key, Value>> merged;
    std::int64_t at = 0;
    for (std::size_t i = 0; i < runs.size(); i += 2) {
      const run_ref<Key, Value> a = runs[i], b = i + 1 < runs.size() ? runs[i + 1] : run_ref<Key, Value>{a.keys, a.values, 0};
      backend.template merge<Descending>(a.keys, a.values, a.length, b.keys, b.values, b.length, to_keys + at,
                                         pairs ? to_values + at : nullptr, begin_bit, end_bit);
      merged.push_back({to_keys + at, pairs ? to_values + at : nullptr, a.length + b.length});
      at += a.length + b.length;
    }
    if (last) return;
    keys = std::move(round_keys);  // stream-ordered on the device: freed once this round has read it
    values = std::move(round_values);
    runs = std::move(merged);
  }
}

}  // namespace lookback::dist
