#pragma once
// The sort's all-to-all of the runs cut from each rank's sorted slice, in parts (each rank's share cut
// into the same number of parts, part c of every share moved by one exchange), so that a rank merges
// part c while part c + 1 is on the wire. A rank's own runs never move: the merge reads them in place.
// Runs start wherever their cuts fall, and NCCL copies a buffer that starts off a 16-byte boundary
// several times slower: measured on two H100s over NVLink (bench/dist_bench.cu), 2^30 4-byte items
// took 8.04 ms with every run 4 bytes off and 3.58 ms aligned. So each run is sent widened to the
// 16-item boundaries around it (16 items are 16 bytes or more for every key and value type), at most
// 15 items more at each end, and lands at a 16-item boundary of the receive buffer; the receiver knows
// where its own items start inside each widened run.
#include <lookback/distributed/communicator.hpp>
#include <lookback/distributed/exchange.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace lookback::dist {

/// Where one run to be merged lies: in the part's receive buffer, or (local) in this rank's own
/// sorted slice.
struct run_span {
  std::int64_t offset = 0;
  std::int64_t length = 0;
  bool local = false;
};

/// One part's exchange, as this rank sees it.
struct run_exchange_plan {
  static constexpr std::int64_t align = 16;  // items
  exchange_plan runs;  // the runs' own lengths, from every rank to every rank
  std::vector<std::int64_t> send_offsets, send_counts, recv_offsets, recv_counts;  // widened, this rank's
  std::vector<run_span> received;  // this part's runs, in source-rank order
  std::int64_t recv_size = 0;      // the receive buffer, widened runs and their alignment gaps
};

/// cuts[j * parts + c]..cuts[j * parts + c + 1] of this rank's n sorted items are part c of rank j's
/// share (find_cuts; parts * size() + 1 cuts). One host exchange plans every part.
inline std::vector<run_exchange_plan> plan_run_exchange(communicator& comm, const std::vector<std::int64_t>& cuts,
                                                        int parts, std::int64_t n) {
  const int p = comm.size(), me = comm.rank();
  const std::int64_t a = run_exchange_plan::align;
  const auto at = [](int i) { return static_cast<std::size_t>(i); };
  // Per part and destination: the run's length, its widened length and where the run starts inside it.
  std::vector<std::int64_t> mine(at(3 * p * parts));
  std::vector<run_exchange_plan> plans(at(parts));
  for (int c = 0; c < parts; ++c)
    for (int j = 0; j < p; ++j) {
      const std::int64_t begin = cuts[at(j * parts + c)], end = cuts[at(j * parts + c + 1)];
      const bool sent = j != me && end > begin;
      const std::int64_t wide_begin = begin / a * a, wide_end = std::min(n, (end + a - 1) / a * a);
      std::int64_t* row = &mine[at(3 * (c * p + j))];
      row[0] = end - begin;
      row[1] = sent ? wide_end - wide_begin : 0;
      row[2] = j == me ? begin : begin - wide_begin;
      plans[at(c)].send_offsets.push_back(sent ? wide_begin : 0);
      plans[at(c)].send_counts.push_back(row[1]);
    }
  std::vector<std::int64_t> all(mine.size() * at(p));
  comm.allgather_host(mine.data(), all.data(), mine.size() * sizeof(std::int64_t));
  const auto from = [&](int i, int c, int j) { return &all[at(i) * mine.size() + at(3 * (c * p + j))]; };
  for (int c = 0; c < parts; ++c) {
    run_exchange_plan& plan = plans[at(c)];
    plan.runs = exchange_plan{p, me, std::vector<std::int64_t>(at(p * p))};
    for (int i = 0; i < p; ++i)
      for (int j = 0; j < p; ++j) plan.runs.counts[at(i * p + j)] = from(i, c, j)[0];
    for (int i = 0; i < p; ++i) {
      const std::int64_t* run = from(i, c, me);
      const std::int64_t start = (plan.recv_size + a - 1) / a * a;
      plan.recv_offsets.push_back(run[1] > 0 ? start : 0);
      plan.recv_counts.push_back(run[1]);
      if (i == me) {
        plan.received.push_back({run[2], run[0], true});
      } else {
        plan.received.push_back({run[1] > 0 ? start + run[2] : 0, run[0], false});
        if (run[1] > 0) plan.recv_size = start + run[1];
      }
    }
  }
  return plans;
}

/// Moves one part's widened runs of `send` (this rank's sorted slice) into `recv` (plan.recv_size
/// items), on `stream`.
template <class T>
void exchange_runs(communicator& comm, const run_exchange_plan& plan, const T* send, T* recv, cudaStream_t stream) {
  comm.alltoallv(send, plan.send_counts.data(), plan.send_offsets.data(), recv, plan.recv_counts.data(),
                 plan.recv_offsets.data(), sizeof(T), stream);
}

}  // namespace lookback::dist
