// lookback::dist on the CPU backend with MPI between the ranks: every function against the sequential
// result, under mpirun -np 2, 3 and 4 in CI (tests/CMakeLists.txt).
#include "distributed/dist_cases.hpp"
#include "distributed/typed_cases.hpp"

#include <lookback/distributed/host_backend.hpp>
#include <lookback/distributed/mpi_communicator.hpp>
#include <lookback/distributed/run_exchange.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace lookback::dist::testing {
namespace {

struct host_ranks : ::testing::Test {
  host_backend backend;
  mpi_communicator comm{MPI_COMM_WORLD};
  rank_env<host_backend> env{backend, comm};
};

TEST_F(host_ranks, reduce_and_scans_equal_the_sequential_result) { run_reduce_and_scan_cases(env); }
TEST_F(host_ranks, histograms_equal_the_sequential_counts_on_every_rank) { run_histogram_cases(env); }
TEST_F(host_ranks, compaction_places_kept_items_at_their_global_offset) { run_select_cases(env); }
TEST_F(host_ranks, sort_is_the_sequential_stable_sort_and_exactly_balanced) { run_sort_cases(env); }

TEST_F(host_ranks, the_commands_typed_runs_equal_the_single_process_cpu_references) {
  typed::dist_rank rank{comm, false, nullptr};
  check_typed_runs(rank);
}

TEST_F(host_ranks, a_failing_rank_stops_every_rank_naming_it) {
  const int failing = comm.size() - 1;
  try {
    guarded(comm, [&] {
      if (comm.rank() == failing) throw std::runtime_error("slice unreadable");
    });
    ADD_FAILURE() << "no rank threw";
  } catch (const dist_error& e) {
    EXPECT_EQ(e.rank(), failing);
    EXPECT_EQ(std::string(e.what()), "rank " + std::to_string(failing) + ": slice unreadable");
  }
}

TEST_F(host_ranks, sort_refuses_a_bit_range_outside_the_key_on_every_rank) {
  std::vector<std::uint32_t> keys(5, 1u);
  EXPECT_THROW(sort_keys(backend, comm, keys.data(), 5, sort_options{false, 4, 33}), std::invalid_argument);
}

/// The sort's runs move from 16-item boundaries and land on them (run_exchange.hpp: NCCL copies
/// misaligned runs at under half speed), and each rank's own items are found inside what it received:
/// runs cut at uneven places, an empty run, a run that ends the slice off a boundary.
TEST_F(host_ranks, the_sorts_runs_move_aligned_and_arrive_whole) {
  const int p = comm.size(), r = comm.rank();
  const std::int64_t n = 1000 + 37 * r;  // every rank's run to rank j: [splits[j], splits[j + 1])
  std::vector<std::int64_t> splits(static_cast<std::size_t>(p) + 1, 0);
  for (int j = 1; j < p; ++j) splits[static_cast<std::size_t>(j)] = std::min<std::int64_t>(n, 17 * j * j + 3 * r);
  if (p > 2) splits[2] = splits[1];  // rank 1 gets an empty run from everyone
  splits[static_cast<std::size_t>(p)] = n;
  std::vector<std::int64_t> items(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) items[static_cast<std::size_t>(i)] = r * 100000 + i;  // source and place

  const run_exchange_plan plan = plan_run_exchange(comm, splits, n);
  for (int j = 0; j < p; ++j) {
    EXPECT_EQ(plan.send_offsets[static_cast<std::size_t>(j)] % 16, 0) << "to rank " << j;
    EXPECT_EQ(plan.recv_offsets[static_cast<std::size_t>(j)] % 16, 0) << "from rank " << j;
    EXPECT_LE(plan.send_offsets[static_cast<std::size_t>(j)] + plan.send_counts[static_cast<std::size_t>(j)], n);
  }
  const std::vector<std::int64_t> received = exchange_runs(backend, comm, plan, items.data());
  ASSERT_EQ(static_cast<std::int64_t>(received.size()), plan.recv_size);
  std::vector<std::int64_t> all_splits(splits.size() * p);
  comm.allgather_host(splits.data(), all_splits.data(), splits.size() * sizeof(std::int64_t));
  for (int i = 0; i < p; ++i) {
    const std::int64_t begin = all_splits[static_cast<std::size_t>(i) * (p + 1) + r];
    const std::int64_t end = all_splits[static_cast<std::size_t>(i) * (p + 1) + r + 1];
    const run_span run = plan.received[static_cast<std::size_t>(i)];
    ASSERT_EQ(run.length, end - begin) << "from rank " << i;
    for (std::int64_t k = 0; k < run.length; ++k)
      ASSERT_EQ(received[static_cast<std::size_t>(run.offset + k)], i * 100000 + begin + k) << "from rank " << i;
    EXPECT_EQ(plan.runs.count(i, r), end - begin);
  }
}

}  // namespace
}  // namespace lookback::dist::testing
