#pragma once
// Distributed radix sort: the result globally sorted across ranks and balanced (rank r holds exactly
// share_size(total, p, r) keys), stable, in the single-GPU sort's order bit for bit. Each rank sorts
// its slice (the backend's stable sort), the exact splitters (splitters.hpp) cut every sorted slice
// into one run per rank, one all-to-all moves the runs (run_exchange.hpp: 16-byte-aligned), and each
// rank merges the runs it received (merge_runs.hpp); they arrive in rank order, so the stable merge
// keeps ties in global order. Besides its input, a rank holds at most two slices of keys and values,
// plus the local sort's scratch.
#include <lookback/distributed/communicator.hpp>
#include <lookback/distributed/merge_runs.hpp>
#include <lookback/distributed/run_exchange.hpp>
#include <lookback/distributed/slices.hpp>
#include <lookback/distributed/sort_options.hpp>
#include <lookback/distributed/splitters.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace lookback::dist {

template <class KeyBuffer, class ValueBuffer>
struct sorted_slice {
  KeyBuffer keys;      // this rank's share of the sorted keys
  ValueBuffer values;  // and their values (empty for keys alone)
  std::int64_t first = 0;  // the global position of keys[0]
  std::int64_t total = 0;  // keys over all ranks
  std::int64_t moved = 0;  // keys that changed rank, over all ranks
};

namespace detail {
template <bool Descending, class Backend, class Key, class Value>
auto sort(Backend& backend, communicator& comm, const Key* d_keys, const Value* d_values, std::int64_t n, int begin_bit,
          int end_bit) {
  constexpr bool pairs = !std::is_same_v<Value, no_values>;
  using key_buffer = typename Backend::template buffer<Key>;
  using value_buffer = typename Backend::template buffer<Value>;
  const int p = comm.size();
  std::int64_t total = 0;
  for (std::int64_t count : allgather_host(comm, n)) total += count;
  const std::int64_t first = share_begin(total, p, comm.rank());

  key_buffer keys = backend.template allocate<Key>(n);
  value_buffer values = backend.template allocate<Value>(pairs ? n : 0);
  guarded(comm, [&] {
    backend.template sort<Descending>(d_keys, keys.data(), d_values, values.data(), n, begin_bit, end_bit);
  });
  if (p == 1) return sorted_slice<key_buffer, value_buffer>{std::move(keys), std::move(values), first, total, 0};

  const std::vector<std::int64_t> splits =
      find_splits<Descending>(backend, comm, keys.data(), n, total, begin_bit, end_bit);
  const run_exchange_plan plan = plan_run_exchange(comm, splits, n);
  key_buffer received_keys = exchange_runs(backend, comm, plan, keys.data());
  value_buffer received_values =
      pairs ? exchange_runs(backend, comm, plan, values.data()) : backend.template allocate<Value>(0);
  keys = backend.template allocate<Key>(0);  // stream-ordered: freed once the exchange has read it
  values = backend.template allocate<Value>(0);

  std::pair<key_buffer, value_buffer> merged;
  guarded(comm, [&] {
    merged = merge_runs<Descending>(backend, std::move(received_keys), std::move(received_values), plan.received,
                                    begin_bit, end_bit);
  });
  return sorted_slice<key_buffer, value_buffer>{std::move(merged.first), std::move(merged.second), first, total,
                                                plan.runs.moved()};
}

template <class Key>
int resolve_end_bit(const sort_options& options) {
  constexpr int width = 8 * static_cast<int>(sizeof(Key));
  const int end = options.end_bit < 0 ? width : options.end_bit;
  if (options.begin_bit < 0 || options.begin_bit >= end || end > width)
    throw std::invalid_argument("lookback::dist::sort: bits [" + std::to_string(options.begin_bit) + ", " +
                                std::to_string(end) + ") are not a range of a " + std::to_string(width) + "-bit key");
  return end;
}
}  // namespace detail

/// Sorts the keys of every rank's slice, with their values; returns this rank's share.
template <class Backend, class Key, class Value>
auto sort_pairs(Backend& backend, communicator& comm, const Key* d_keys, const Value* d_values, std::int64_t num_items,
                const sort_options& options = {}) {
  const int end = detail::resolve_end_bit<Key>(options);
  return options.descending
             ? detail::sort<true>(backend, comm, d_keys, d_values, num_items, options.begin_bit, end)
             : detail::sort<false>(backend, comm, d_keys, d_values, num_items, options.begin_bit, end);
}

template <class Backend, class Key>
auto sort_keys(Backend& backend, communicator& comm, const Key* d_keys, std::int64_t num_items,
               const sort_options& options = {}) {
  return sort_pairs(backend, comm, d_keys, static_cast<const no_values*>(nullptr), num_items, options);
}

}  // namespace lookback::dist
