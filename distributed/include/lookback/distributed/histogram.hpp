#pragma once
// Distributed histograms: each rank counts its slice with the backend's kernel, then one all-reduce of
// the counters leaves the global histogram on every rank, which answers range queries from its own
// prefix (lookback::histogram_prefix, range_counts). No host synchronisation.
#include <lookback/algorithms/histogram/bin_mapping.cuh>
#include <lookback/distributed/communicator.hpp>

#include <cstdint>

namespace lookback::dist {

/// num_bins equal bins over [lower, upper), as lookback::histogram_even; d_counts on every rank.
template <class Backend, class Sample, class Counter>
void histogram_even(Backend& backend, communicator& comm, const Sample* d_samples, std::int64_t num_samples,
                    Counter* d_counts, int num_bins, histogram::level_t<Sample> lower, histogram::level_t<Sample> upper) {
  guarded(comm, [&] { backend.histogram_even(d_samples, num_samples, d_counts, num_bins, lower, upper); });
  allreduce(comm, d_counts, d_counts, static_cast<std::size_t>(num_bins), reduce_op::sum, backend.stream());
}

/// Bins between num_bins + 1 ascending levels in the backend's memory, as lookback::histogram_range.
template <class Backend, class Sample, class Counter>
void histogram_range(Backend& backend, communicator& comm, const Sample* d_samples, std::int64_t num_samples,
                     Counter* d_counts, int num_bins, const histogram::level_t<Sample>* d_levels) {
  guarded(comm, [&] { backend.histogram_range(d_samples, num_samples, d_counts, num_bins, d_levels); });
  allreduce(comm, d_counts, d_counts, static_cast<std::size_t>(num_bins), reduce_op::sum, backend.stream());
}

}  // namespace lookback::dist
