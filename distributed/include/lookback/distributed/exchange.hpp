#pragma once
// The one all-to-all exchange that the sort and the rebalancing compaction share: every rank's send
// counts made known to all, the receive side's offsets derived, the items moved in one alltoallv.
#include <lookback/distributed/communicator.hpp>
#include <lookback/distributed/slices.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace lookback::dist {

/// Who sends what to whom: counts[i * p + j] items go from rank i to rank j.
struct exchange_plan {
  int ranks = 1;
  int rank = 0;
  std::vector<std::int64_t> counts;

  [[nodiscard]] std::int64_t count(int from, int to) const { return counts[static_cast<std::size_t>(from) * ranks + to]; }
  [[nodiscard]] std::vector<std::int64_t> send_counts() const { return row(rank, true); }
  [[nodiscard]] std::vector<std::int64_t> recv_counts() const { return row(rank, false); }
  /// Items that change rank, over all ranks.
  [[nodiscard]] std::int64_t moved() const {
    std::int64_t total = 0;
    for (int i = 0; i < ranks; ++i)
      for (int j = 0; j < ranks; ++j)
        if (i != j) total += count(i, j);
    return total;
  }

 private:
  [[nodiscard]] std::vector<std::int64_t> row(int r, bool sending) const {
    std::vector<std::int64_t> out(static_cast<std::size_t>(ranks));
    for (int j = 0; j < ranks; ++j) out[static_cast<std::size_t>(j)] = sending ? count(r, j) : count(j, r);
    return out;
  }
};

/// Every rank passes what it sends to each rank; all learn the whole matrix.
inline exchange_plan plan_exchange(communicator& comm, const std::vector<std::int64_t>& send_counts) {
  exchange_plan plan{comm.size(), comm.rank(), std::vector<std::int64_t>(static_cast<std::size_t>(comm.size()) * comm.size())};
  comm.allgather_host(send_counts.data(), plan.counts.data(), send_counts.size() * sizeof(std::int64_t));
  return plan;
}

/// Where items [first, first + count) of a global array of `total` go when it is dealt out balanced
/// (slices.hpp): the part of them that falls in each rank's share.
inline std::vector<std::int64_t> balanced_send_counts(std::int64_t first, std::int64_t count, std::int64_t total, int ranks) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(ranks));
  for (int j = 0; j < ranks; ++j) {
    const std::int64_t lo = std::max(first, share_begin(total, ranks, j));
    const std::int64_t hi = std::min(first + count, share_begin(total, ranks, j + 1));
    out[static_cast<std::size_t>(j)] = std::max<std::int64_t>(0, hi - lo);
  }
  return out;
}

namespace detail {
inline std::vector<std::int64_t> offsets_of(const std::vector<std::int64_t>& counts) {
  std::vector<std::int64_t> offsets(counts.size());
  std::int64_t at = 0;
  for (std::size_t j = 0; j < counts.size(); ++j) {
    offsets[j] = at;
    at += counts[j];
  }
  return offsets;
}
}  // namespace detail

/// Moves `send`'s items by the plan (runs to ranks in rank order) into a new buffer holding what this
/// rank receives, runs from lower ranks first.
template <class Backend, class T>
auto exchange(Backend& backend, communicator& comm, const exchange_plan& plan, const T* send) {
  const auto send_counts = plan.send_counts(), recv_counts = plan.recv_counts();
  const auto send_offsets = detail::offsets_of(send_counts), recv_offsets = detail::offsets_of(recv_counts);
  std::int64_t received = 0;
  for (std::int64_t c : recv_counts) received += c;
  // An allocation that fails on one rank stops every rank before the collective would wait for it.
  typename Backend::template buffer<T> recv;
  guarded(comm, [&] { recv = backend.template allocate<T>(received); });
  comm.alltoallv(send, send_counts.data(), send_offsets.data(), recv.data(), recv_counts.data(), recv_offsets.data(),
                 sizeof(T), backend.stream());
  return recv;
}

}  // namespace lookback::dist
