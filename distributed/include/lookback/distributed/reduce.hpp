#pragma once
// Distributed reduce: each rank reduces its slice with the backend's kernel, then one all-reduce of
// the partials leaves the global result on every rank. No host synchronisation.
#include <lookback/distributed/communicator.hpp>
#include <lookback/primitives/operators.cuh>

#include <cstdint>

namespace lookback::dist {

/// *d_result (one item in the backend's memory, on every rank) = op over every rank's items.
/// Op: lookback::sum, minimum or maximum (the collectives' own operators).
template <class Backend, class T, class Op>
void reduce(Backend& backend, communicator& comm, const T* d_in, std::int64_t num_items, T* d_result, Op op) {
  // From the identity, as lookback::reduce is called: an empty or all -0.0 float sum is +0.0.
  guarded(comm, [&] { backend.reduce(d_in, num_items, d_result, op, identity_of<T>(op)); });
  allreduce(comm, d_result, d_result, 1, reduce_op_of<Op>(), backend.stream());
}

}  // namespace lookback::dist
