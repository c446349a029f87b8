#pragma once
// Distributed scans: each rank reduces its slice, the ranks' totals are all-gathered, each rank folds
// the totals of the ranks before it into its offset on the device, and the local look-back scan starts
// from that offset (a carried prefix, scan_carry.cuh). The input is read twice (reduce, scan) and the
// output written once; nothing waits for the host.
#include <lookback/distributed/communicator.hpp>
#include <lookback/primitives/operators.cuh>

#include <cstdint>

namespace lookback::dist {

namespace detail {
template <bool Exclusive, class Backend, class T, class Op>
void scan(Backend& backend, communicator& comm, const T* d_in, T* d_out, std::int64_t num_items, T init, Op op) {
  const int rank = comm.rank();
  // Every rank's total, then this rank's, its offset, and the slot the carried scan leaves its end in.
  auto totals = backend.template allocate<T>(comm.size() + 3);
  T* d_totals = totals.data();
  T* d_mine = d_totals + comm.size();
  T* d_offset = d_mine + 1;
  T* d_end = d_offset + 1;
  // The totals start from -0.0 for a float sum (neutral_of): a slice of -0.0s totals -0.0, so the
  // ranks after it keep the sign a single scan would.
  guarded(comm, [&] { backend.reduce(d_in, num_items, d_mine, op, neutral_of<T>(op)); });
  comm.allgather(d_mine, d_totals, sizeof(T), backend.stream());
  guarded(comm, [&] {
    if constexpr (Exclusive) {
      backend.fold(d_totals, rank, true, init, op, d_offset);
      backend.exclusive_scan(d_in, d_out, num_items, d_offset, d_end, op);
    } else {
      // Rank 0 starts from its first item, not identity op item (-0.0 stays -0.0).
      if (rank > 0) backend.fold(d_totals, rank, false, init, op, d_offset);
      backend.inclusive_scan(d_in, d_out, num_items, rank > 0 ? d_offset : nullptr, d_end, op);
    }
  });
}
}  // namespace detail

/// d_out[i] = init op (every item before this rank's i-th, over all ranks in rank order).
template <class Backend, class T, class Op>
void exclusive_scan(Backend& backend, communicator& comm, const T* d_in, T* d_out, std::int64_t num_items, T init, Op op) {
  detail::scan<true>(backend, comm, d_in, d_out, num_items, init, op);
}

/// d_out[i] = every item up to this rank's i-th, over all ranks in rank order.
template <class Backend, class T, class Op>
void inclusive_scan(Backend& backend, communicator& comm, const T* d_in, T* d_out, std::int64_t num_items, Op op) {
  detail::scan<false>(backend, comm, d_in, d_out, num_items, neutral_of<T>(op), op);
}

}  // namespace lookback::dist
