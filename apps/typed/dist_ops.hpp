#pragma once
// The distributed algorithms (lookback::dist) for run-time dtypes, on one rank: host arrays in and
// out, computed by the GPU backend (NCCL between ranks; dist_gpu.cu) or the CPU backend (MPI;
// dist_cpu.cpp), both from the one template in dist_run.hpp.
#include "typed/histogram_ops.hpp"
#include "typed/select_ops.hpp"
#include "typed/sort_ops.hpp"
#include "typed/typed_ops.hpp"

#include <lookback/distributed/communicator.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace lookback::typed {

/// One rank: its communicator and where it computes (the GPU current on this thread, and its stream).
struct dist_rank {
  dist::communicator& comm;
  bool gpu = false;
  cudaStream_t stream = nullptr;
};

/// *h_result (one item of `type`) = the reduction over every rank's items.
void dist_reduce(const dist_rank& r, io::dtype type, op_kind op, const void* h_in, std::int64_t n, void* h_result);
/// This rank's part of the scan of every rank's items in rank order.
void dist_scan(const dist_rank& r, const scan_spec& spec, const void* h_in, void* h_out, std::int64_t n);
/// spec.num_bins counters of spec.counter: the histogram of every rank's samples.
void dist_histogram(const dist_rank& r, const histogram_spec& spec, const void* h_samples, std::int64_t n, void* h_counts);

struct dist_kept {
  std::vector<std::byte> items;  // this rank's kept items
  std::int64_t count = 0;
  std::int64_t first = 0;  // their global position
  std::int64_t total = 0;
};
/// h_flags (one uint8 per value) when spec.flagged, else null.
dist_kept dist_select(const dist_rank& r, const select_spec& spec, const void* h_values, const std::uint8_t* h_flags,
                      std::int64_t n);

struct dist_sorted {
  std::vector<std::byte> keys, values;  // this rank's balanced share
  std::int64_t count = 0;
  std::int64_t first = 0;
  std::int64_t total = 0;
  std::int64_t moved = 0;  // items that changed rank, over all ranks
};
/// h_values null for keys alone.
dist_sorted dist_sort(const dist_rank& r, const sort_spec& spec, const void* h_keys, const void* h_values, std::int64_t n);

namespace detail {
void dist_reduce_gpu(const dist_rank& r, io::dtype type, op_kind op, const void* h_in, std::int64_t n, void* h_result);
void dist_scan_gpu(const dist_rank& r, const scan_spec& spec, const void* h_in, void* h_out, std::int64_t n);
void dist_histogram_gpu(const dist_rank& r, const histogram_spec& spec, const void* h_samples, std::int64_t n, void* h_counts);
dist_kept dist_select_gpu(const dist_rank& r, const select_spec& spec, const void* h_values, const std::uint8_t* h_flags,
                          std::int64_t n);
dist_sorted dist_sort_gpu(const dist_rank& r, const sort_spec& spec, const void* h_keys, const void* h_values, std::int64_t n);
void dist_reduce_cpu(const dist_rank& r, io::dtype type, op_kind op, const void* h_in, std::int64_t n, void* h_result);
void dist_scan_cpu(const dist_rank& r, const scan_spec& spec, const void* h_in, void* h_out, std::int64_t n);
void dist_histogram_cpu(const dist_rank& r, const histogram_spec& spec, const void* h_samples, std::int64_t n, void* h_counts);
dist_kept dist_select_cpu(const dist_rank& r, const select_spec& spec, const void* h_values, const std::uint8_t* h_flags,
                          std::int64_t n);
dist_sorted dist_sort_cpu(const dist_rank& r, const sort_spec& spec, const void* h_keys, const void* h_values, std::int64_t n);
}  // namespace detail

}  // namespace lookback::typed
