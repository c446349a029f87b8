#pragma once
// Distributed radix sort: the result globally sorted across ranks and balanced (rank r holds exactly
// share_size(total, p, r) keys), stable, in the single-GPU sort's order bit for bit. Each rank sorts
// its slice (the backend's stable sort); exact cuts (splitters.hpp) split every sorted slice into runs,
// one for each part of each rank's share; the parts move one exchange each (run_exchange.hpp: 16-byte
// aligned, a rank's own runs kept in place) on the backend's exchange stream, and each rank merges a
// part's runs into its share (merge_runs.hpp) while the next part is on the wire. Runs arrive in rank
// order, so the stable merge keeps ties in global order. Besides its input, a rank holds its sorted
// slice, the runs it receives and its share (with the local sort's scratch before, and one or two
// part-sized merge scratch buffers with more than two ranks).
#include <lookback/distributed/communicator.hpp>
#include <lookback/distributed/merge_runs.hpp>
#include <lookback/distributed/run_exchange.hpp>
#include <lookback/distributed/slices.hpp>
#include <lookback/distributed/sort_options.hpp>
#include <lookback/distributed/splitters.hpp>

#include <algorithm>
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
/// Parts of a share: two from 2^25 items a share on, else one. Measured on two H100s (NVLink, NCCL
/// 2.28.3), 2^30 uint32 keys, two runs (bench/dist_bench.cu): 1 part 14.45 / 14.35 ms, 2 parts 13.76 /
/// 13.62, 4 parts 14.10 / 14.52, 8 parts 14.42 / 14.27, 16 parts 14.72 / 14.51; the merge of a part
/// beside the next part's exchange slows both, so more, smaller parts hide less.
inline int exchange_parts(int asked, std::int64_t total, int p) {
  if (asked > 0) return asked;
  const std::int64_t share = (total + p - 1) / p;
  return share >= (std::int64_t{1} << 25) ? 2 : 1;
}

/// The global positions where each part of each rank's share begins, and the end: parts * p + 1.
inline std::vector<std::int64_t> part_positions(std::int64_t total, int p, int parts) {
  std::vector<std::int64_t> positions;
  for (int j = 0; j < p; ++j)
    for (int c = 0; c < parts; ++c)
      positions.push_back(share_begin(total, p, j) + share_begin(share_size(total, p, j), parts, c));
  positions.push_back(total);
  return positions;
}

template <bool Descending, class Backend, class Key, class Value>
auto sort(Backend& backend, communicator& comm, const Key* d_keys, const Value* d_values, std::int64_t n, int begin_bit,
          int end_bit, int asked_parts) {
  constexpr bool pairs = !std::is_same_v<Value, no_values>;
  using key_buffer = typename Backend::template buffer<Key>;
  using value_buffer = typename Backend::template buffer<Value>;
  const int p = comm.size(), me = comm.rank();
  // What every rank must ask alike: the parts, the direction and the bits (the cut search's rounds of
  // collectives follow from the bits), beside each rank's own count.
  struct call {
    std::int64_t items;
    std::int64_t asked_parts;
    std::int32_t descending;
    std::int32_t begin_bit;
    std::int32_t end_bit;
  };
  // A rank whose inputs failed before the sort meets the others at an agreement, never at an exchange
  // of a different size: so the sort opens with one.
  agree(comm, std::string{});
  std::int64_t total = 0;
  const std::vector<call> calls = allgather_host(comm, call{n, asked_parts, Descending, begin_bit, end_bit});
  for (const call& c : calls) {
    total += c.items;
    // Every rank sees the same calls, so every rank throws.
    if (c.asked_parts != calls[0].asked_parts)
      throw std::invalid_argument("lookback::dist::sort: the ranks ask for different exchange_parts (" +
                                  std::to_string(calls[0].asked_parts) + " on rank 0, " +
                                  std::to_string(c.asked_parts) + " on another)");
    if (c.descending != calls[0].descending || c.begin_bit != calls[0].begin_bit || c.end_bit != calls[0].end_bit)
      throw std::invalid_argument("lookback::dist::sort: the ranks ask for different orders or bit ranges (" +
                                  std::string(calls[0].descending ? "descending" : "ascending") + " bits [" +
                                  std::to_string(calls[0].begin_bit) + ", " + std::to_string(calls[0].end_bit) +
                                  ") on rank 0, " + (c.descending ? "descending" : "ascending") + " bits [" +
                                  std::to_string(c.begin_bit) + ", " + std::to_string(c.end_bit) + ") on another)");
  }
  const std::int64_t first = share_begin(total, p, me), share = share_size(total, p, me);
  const int parts = exchange_parts(asked_parts, total, p);

  key_buffer keys;
  value_buffer values;
  guarded(comm, [&] {  // the allocations too: a rank that fails one must not leave the others waiting
    keys = backend.template allocate<Key>(n);
    values = backend.template allocate<Value>(pairs ? n : 0);
    backend.template sort<Descending>(d_keys, keys.data(), d_values, values.data(), n, begin_bit, end_bit);
  });
  if (p == 1) return sorted_slice<key_buffer, value_buffer>{std::move(keys), std::move(values), first, total, 0};

  const std::vector<std::int64_t> cuts =
      find_cuts<Descending>(backend, comm, keys.data(), n, total, part_positions(total, p, parts), begin_bit, end_bit);
  const std::vector<run_exchange_plan> plans = plan_run_exchange(comm, cuts, parts, n);
  key_buffer out_keys = backend.template allocate<Key>(0);
  value_buffer out_values = backend.template allocate<Value>(0);
  std::vector<key_buffer> received_keys;
  std::vector<value_buffer> received_values;
  std::int64_t moved = 0, arriving = 0;
  guarded(comm, [&] {  // an allocation that fails on one rank stops every rank here
    out_keys = backend.template allocate<Key>(share);
    out_values = backend.template allocate<Value>(pairs ? share : 0);
    for (const run_exchange_plan& plan : plans) {
      received_keys.push_back(backend.template allocate<Key>(plan.recv_size));
      received_values.push_back(backend.template allocate<Value>(pairs ? plan.recv_size : 0));
      moved += plan.runs.moved();
      for (const run_span& run : plan.received) arriving += run.length;
    }
    if (arriving != share)
      throw std::logic_error("lookback::dist::sort: the runs bound here hold " + std::to_string(arriving) +
                             " keys, the share " + std::to_string(share));
  });
  backend.exchange_waits_for_work();  // the sorted slice and the receive buffers are ready
  try {
    std::int64_t at = 0;
    for (std::size_t c = 0; c < plans.size(); ++c) {
      const run_exchange_plan& plan = plans[c];
      exchange_runs(comm, plan, keys.data(), received_keys[c].data(), backend.exchange_stream());
      if constexpr (pairs) exchange_runs(comm, plan, values.data(), received_values[c].data(), backend.exchange_stream());
      backend.work_waits_for_exchange();
      std::vector<run_ref<Key, Value>> runs;
      std::int64_t length = 0;
      for (const run_span& run : plan.received) {
        const Key* run_keys = run.local ? keys.data() : received_keys[c].data();
        const Value* run_values = !pairs ? nullptr : run.local ? values.data() : received_values[c].data();
        runs.push_back({run_keys + run.offset, pairs ? run_values + run.offset : nullptr, run.length});
        length += run.length;
      }
      guarded(comm, [&] {
        merge_runs<Descending>(backend, std::move(runs), out_keys.data() + at, pairs ? out_values.data() + at : nullptr,
                               begin_bit, end_bit);
      });
      at += length;
    }
  } catch (...) {
    // The buffers go on the work stream: it must not free what an exchange still reads or writes.
    try {
      backend.work_waits_for_exchange();
    } catch (...) {
    }
    throw;
  }
  return sorted_slice<key_buffer, value_buffer>{std::move(out_keys), std::move(out_values), first, total, moved};
}

template <class Key>
int checked_end_bit(const sort_options& options) {
  constexpr int width = 8 * static_cast<int>(sizeof(Key));
  const int end = options.end_bit < 0 ? width : options.end_bit;
  if (options.begin_bit < 0 || options.begin_bit >= end || end > width)
    throw std::invalid_argument("lookback::dist::sort: bits [" + std::to_string(options.begin_bit) + ", " +
                                std::to_string(end) + ") are not a range of a " + std::to_string(width) + "-bit key");
  if (options.exchange_parts < 0)
    throw std::invalid_argument("lookback::dist::sort: exchange_parts " + std::to_string(options.exchange_parts) +
                                " is negative");
  return end;
}
}  // namespace detail

/// Sorts the keys of every rank's slice, with their values; returns this rank's share.
template <class Backend, class Key, class Value>
auto sort_pairs(Backend& backend, communicator& comm, const Key* d_keys, const Value* d_values, std::int64_t num_items,
                const sort_options& options = {}) {
  const int end = detail::checked_end_bit<Key>(options);
  return options.descending
             ? detail::sort<true>(backend, comm, d_keys, d_values, num_items, options.begin_bit, end, options.exchange_parts)
             : detail::sort<false>(backend, comm, d_keys, d_values, num_items, options.begin_bit, end, options.exchange_parts);
}

template <class Backend, class Key>
auto sort_keys(Backend& backend, communicator& comm, const Key* d_keys, std::int64_t num_items,
               const sort_options& options = {}) {
  return sort_pairs(backend, comm, d_keys, static_cast<const no_values*>(nullptr), num_items, options);
}

}  // namespace lookback::dist
