#pragma once
// The sort's all-to-all of the runs cut from each rank's sorted slice, moved with 16-byte-aligned
// starts. A run begins wherever its splitter falls, and NCCL copies a buffer that starts off a 16-byte
// boundary several times slower: measured on two H100s over NVLink (bench/dist_bench.cu), 2^30 4-byte
// items took 8.04 ms with every run 4 bytes off and 3.58 ms aligned. So each run is sent widened to
// the 16-item boundaries around it (16 items are 16 bytes or more for every key and value type), at
// most 15 items more at each end, and lands at a 16-item boundary of the receive buffer; the receiver
// knows where its own items start inside each widened run.
#include <lookback/distributed/communicator.hpp>
#include <lookback/distributed/exchange.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace lookback::dist {

/// Where one received run lies in the receive buffer.
struct run_span {
  std::int64_t offset = 0;
  std::int64_t length = 0;
};

struct run_exchange_plan {
  static constexpr std::int64_t align = 16;  // items
  exchange_plan runs;  // the runs' own lengths, from every rank to every rank
  std::vector<std::int64_t> send_offsets, send_counts, recv_offsets, recv_counts;  // widened, this rank's
  std::vector<run_span> received;  // this rank's items inside each widened run, in source-rank order
  std::int64_t recv_size = 0;      // the receive buffer, widened runs and their alignment gaps
};

/// splits[j]..splits[j + 1] of this rank's n sorted items go to rank j (find_splits).
inline run_exchange_plan plan_run_exchange(communicator& comm, const std::vector<std::int64_t>& splits, std::int64_t n) {
  const int p = comm.size();
  const std::int64_t a = run_exchange_plan::align;
  run_exchange_plan plan;
  // Per destination: the run's length, its widened length and where the run starts inside it.
  std::vector<std::int64_t> mine(static_cast<std::size_t>(3 * p));
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(p));
  for (int j = 0; j < p; ++j) {
    const std::int64_t begin = splits[static_cast<std::size_t>(j)], end = splits[static_cast<std::size_t>(j) + 1];
    const std::int64_t wide_begin = begin / a * a;
    const std::int64_t wide_end = end == begin ? wide_begin : std::min(n, (end + a - 1) / a * a);
    lengths[static_cast<std::size_t>(j)] = end - begin;
    mine[static_cast<std::size_t>(3 * j)] = end - begin;
    mine[static_cast<std::size_t>(3 * j + 1)] = end == begin ? 0 : wide_end - wide_begin;
    mine[static_cast<std::size_t>(3 * j + 2)] = begin - wide_begin;
    plan.send_offsets.push_back(wide_begin);
    plan.send_counts.push_back(mine[static_cast<std::size_t>(3 * j + 1)]);
  }
  std::vector<std::int64_t> all(static_cast<std::size_t>(3 * p) * p);
  comm.allgather_host(mine.data(), all.data(), mine.size() * sizeof(std::int64_t));
  plan.runs = exchange_plan{p, comm.rank(), std::vector<std::int64_t>(static_cast<std::size_t>(p) * p)};
  for (int i = 0; i < p; ++i)
    for (int j = 0; j < p; ++j)
      plan.runs.counts[static_cast<std::size_t>(i) * p + j] = all[static_cast<std::size_t>(i * 3 * p + 3 * j)];
  for (int i = 0; i < p; ++i) {
    const std::size_t from = static_cast<std::size_t>(i * 3 * p + 3 * comm.rank());
    const std::int64_t at = (plan.recv_size + a - 1) / a * a;
    plan.recv_offsets.push_back(at);
    plan.recv_counts.push_back(all[from + 1]);
    plan.received.push_back({at + all[from + 2], all[from]});
    plan.recv_size = at + all[from + 1];
  }
  return plan;
}

/// Moves the widened runs of `send` (this rank's sorted slice) by the plan into a new buffer of
/// plan.recv_size items.
template <class Backend, class T>
auto exchange_runs(Backend& backend, communicator& comm, const run_exchange_plan& plan, const T* send) {
  auto recv = backend.template allocate<T>(plan.recv_size);
  comm.alltoallv(send, plan.send_counts.data(), plan.send_offsets.data(), recv.data(), plan.recv_counts.data(),
                 plan.recv_offsets.data(), sizeof(T), backend.stream());
  return recv;
}

}  // namespace lookback::dist
