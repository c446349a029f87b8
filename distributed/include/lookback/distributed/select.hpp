#pragma once
// Distributed compaction: each rank compacts its slice (the backend's one-pass select), the kept counts
// are exchanged, and each rank's kept items take their global offset: rank order is global order.
// Optionally the kept items are then dealt out balanced over the ranks in one all-to-all.
#include <lookback/distributed/communicator.hpp>
#include <lookback/distributed/exchange.hpp>
#include <lookback/distributed/slices.hpp>

#include <cstdint>
#include <utility>

namespace lookback::dist {

struct select_options {
  bool rebalance = false;  // every rank ends with share_size(total, p, rank) kept items
};

template <class Buffer>
struct selection {
  Buffer items;            // the kept items are items[0, count)
  std::int64_t count = 0;
  std::int64_t first = 0;  // their global position
  std::int64_t total = 0;  // kept over all ranks
  std::int64_t moved = 0;  // items that changed rank to rebalance, over all ranks
};

namespace detail {
template <class T, class Backend, class Compact>
auto select(Backend& backend, communicator& comm, std::int64_t n, const select_options& options, Compact compact) {
  using buffer = typename Backend::template buffer<T>;
  buffer kept;
  std::int64_t count = 0;
  guarded(comm, [&] {  // the allocation too: a rank that fails it must not leave the others waiting
    kept = backend.template allocate<T>(n);
    count = compact(kept.data());
  });
  const auto counts = allgather_host(comm, count);
  std::int64_t first = 0, total = 0;
  for (int r = 0; r < comm.size(); ++r) {
    if (r < comm.rank()) first += counts[static_cast<std::size_t>(r)];
    total += counts[static_cast<std::size_t>(r)];
  }
  if (!options.rebalance) return selection<buffer>{std::move(kept), count, first, total, 0};
  const exchange_plan plan = plan_exchange(comm, balanced_send_counts(first, count, total, comm.size()));
  buffer items = exchange(backend, comm, plan, kept.data());
  const auto received = static_cast<std::int64_t>(items.size());
  return selection<buffer>{std::move(items), received, share_begin(total, comm.size(), comm.rank()), total, plan.moved()};
}
}  // namespace detail

/// Keeps the items for which pred is true, in global order.
template <class Backend, class T, class Pred>
auto select_if(Backend& backend, communicator& comm, const T* d_in, std::int64_t num_items, Pred pred,
               const select_options& options = {}) {
  return detail::select<T>(backend, comm, num_items, options,
                           [&](T* d_out) { return backend.select_if(d_in, num_items, d_out, pred); });
}

/// Keeps the items whose flag is nonzero, in global order.
template <class Backend, class T, class Flag>
auto select_flagged(Backend& backend, communicator& comm, const T* d_in, const Flag* d_flags, std::int64_t num_items,
                    const select_options& options = {}) {
  return detail::select<T>(backend, comm, num_items, options,
                           [&](T* d_out) { return backend.select_flagged(d_in, d_flags, num_items, d_out); });
}

}  // namespace lookback::dist
