#pragma once
// The distributed sort's exact cuts. For a global position g of the sorted output (where a rank's
// share, or a part of it, begins), the key there is found digit by digit, 8 bits a round, from the
// global count of keys at most each candidate (every rank counts in its sorted slice by binary search,
// one all-reduce sums). Keys equal to that key are then dealt in rank order, so the cut is exact for
// any distribution (all-equal keys included) and keeps the sort stable: ties go by global position.
// All positions are found in the same rounds, so many cost about what one does.
#include <lookback/distributed/communicator.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace lookback::dist {

namespace detail {
inline std::uint64_t low_ones(int bits) { return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1; }
}  // namespace detail

/// Where each of the global positions (every rank passes the same, ascending, in [0, total]) falls
/// in this rank's sorted slice of n: cuts[i] of this rank's items come before positions[i] in the
/// global order. `total` is the global count.
template <bool Descending, class Backend, class Key>
std::vector<std::int64_t> find_cuts(Backend& backend, communicator& comm, const Key* d_sorted, std::int64_t n,
                                    std::int64_t total, const std::vector<std::int64_t>& positions, int begin_bit,
                                    int end_bit) {
  const int p = comm.size(), rank = comm.rank();
  std::vector<std::int64_t> cuts(positions.size(), 0);
  struct boundary {
    std::size_t index;
    std::int64_t position;
    std::uint64_t key = 0;  // the sort field of the key at `position`, known digit by digit
  };
  // Positions at 0 or at the end cut every slice at its start or its end; every rank sees the same
  // list, so all take part in the same collectives.
  std::vector<boundary> inner;
  for (std::size_t i = 0; i < positions.size(); ++i) {
    const std::int64_t g = positions[i];
    if (g >= total) cuts[i] = n;
    else if (g > 0) inner.push_back({i, g});
  }
  if (inner.empty()) return cuts;

  const auto m = static_cast<std::int64_t>(inner.size());
  auto d_probes = backend.template allocate<std::uint64_t>(m * 256);
  auto d_counts = backend.template allocate<std::int64_t>(m * 256);
  std::vector<std::uint64_t> probes(static_cast<std::size_t>(m) * 256);
  std::vector<std::int64_t> counts(static_cast<std::size_t>(m) * 256);
  // Each local step ends at an agreement, so that one failing on a single rank stops every rank before
  // the next exchange (the counts' all-gather would not match a failed rank's agreement).
  const auto count_locally = [&](std::int64_t q) {
    guarded(comm, [&] {
      backend.copy_from_host(probes.data(), d_probes.data(), q);
      backend.template count_at_most<Descending>(d_sorted, n, begin_bit, end_bit, d_probes.data(), q, d_counts.data());
    });
  };
  const auto fetch_counts = [&](std::int64_t q) {
    guarded(comm, [&] {
      backend.copy_to_host(d_counts.data(), counts.data(), q);
      comm.sync_stream(backend.stream());
    });
  };

  for (int shift = end_bit - begin_bit; shift > 0;) {
    const int digit_bits = shift % 8 == 0 ? 8 : shift % 8;  // the top digit takes the odd bits
    shift -= digit_bits;
    const int digits = 1 << digit_bits;
    for (std::int64_t b = 0; b < m; ++b)
      for (int d = 0; d < digits; ++d)
        probes[static_cast<std::size_t>(b * digits + d)] =
            inner[static_cast<std::size_t>(b)].key | (static_cast<std::uint64_t>(d) << shift) | detail::low_ones(shift);
    count_locally(m * digits);
    allreduce(comm, d_counts.data(), d_counts.data(), static_cast<std::size_t>(m * digits), reduce_op::sum,
              backend.stream());
    fetch_counts(m * digits);
    // The smallest digit with more than `position` keys at or below it: the key at `position` has it.
    for (std::int64_t b = 0; b < m; ++b) {
      boundary& at = inner[static_cast<std::size_t>(b)];
      int d = 0;
      while (counts[static_cast<std::size_t>(b * digits + d)] <= at.position) ++d;
      at.key |= static_cast<std::uint64_t>(d) << shift;
    }
  }

  // This rank's keys below each boundary key and equal to it.
  for (std::int64_t b = 0; b < m; ++b) {
    const std::uint64_t key = inner[static_cast<std::size_t>(b)].key;
    probes[static_cast<std::size_t>(2 * b)] = key;
    probes[static_cast<std::size_t>(2 * b + 1)] = key == 0 ? 0 : key - 1;
  }
  count_locally(2 * m);
  fetch_counts(2 * m);
  std::vector<std::int64_t> mine(static_cast<std::size_t>(2 * m));  // below, equal; per boundary
  for (std::int64_t b = 0; b < m; ++b) {
    const std::int64_t at_most = counts[static_cast<std::size_t>(2 * b)];
    const std::int64_t below = inner[static_cast<std::size_t>(b)].key == 0 ? 0 : counts[static_cast<std::size_t>(2 * b + 1)];
    mine[static_cast<std::size_t>(2 * b)] = below;
    mine[static_cast<std::size_t>(2 * b + 1)] = at_most - below;
  }
  std::vector<std::int64_t> all(static_cast<std::size_t>(2 * m) * p);
  comm.allgather_host(mine.data(), all.data(), mine.size() * sizeof(std::int64_t));
  // Keys equal to the boundary key fill the places left before the boundary, lower ranks first.
  for (std::int64_t b = 0; b < m; ++b) {
    std::int64_t below = 0, equal_before = 0;
    for (int i = 0; i < p; ++i) below += all[static_cast<std::size_t>(i * 2 * m + 2 * b)];
    for (int i = 0; i < rank; ++i) equal_before += all[static_cast<std::size_t>(i * 2 * m + 2 * b + 1)];
    const std::int64_t needed = inner[static_cast<std::size_t>(b)].position - below;
    const std::int64_t equal = mine[static_cast<std::size_t>(2 * b + 1)];
    cuts[inner[static_cast<std::size_t>(b)].index] =
        mine[static_cast<std::size_t>(2 * b)] + std::clamp<std::int64_t>(needed - equal_before, 0, equal);
  }
  return cuts;
}

}  // namespace lookback::dist
