// lookback::dist on the CPU backend with MPI between the ranks: every function against the sequential
// result, under mpirun -np 2, 3 and 4 in CI (tests/CMakeLists.txt).
#include "distributed/dist_cases.hpp"
#include "distributed/typed_cases.hpp"

#include <lookback/distributed/host_backend.hpp>
#include <lookback/distributed/mpi_communicator.hpp>
#include <lookback/distributed/run_exchange.hpp>

#include <algorithm>
#include <new>
#include <sysexits.h>
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

// Out of memory on one rank is out of memory on every rank (EX_OSERR, as a single process reports it),
// whether the host's or the device's; any other failure carries no exit code.
TEST_F(host_ranks, a_rank_out_of_memory_stops_every_rank_with_the_os_error_code) {
  const int failing = comm.size() - 1;
  const auto exit_code_when = [&](auto fail) {
    try {
      guarded(comm, [&] {
        if (comm.rank() == failing) fail();
      });
    } catch (const dist_error& e) {
      EXPECT_EQ(e.rank(), failing);
      return e.exit_code();
    }
    ADD_FAILURE() << "no rank threw";
    return -1;
  };
  EXPECT_EQ(exit_code_when([] { throw std::bad_alloc(); }), EX_OSERR);
  EXPECT_EQ(exit_code_when([] { LOOKBACK_CUDA_TRY(cudaErrorMemoryAllocation); }), EX_OSERR);
  EXPECT_EQ(exit_code_when([] { LOOKBACK_CUDA_TRY(cudaErrorInvalidValue); }), 0);
  EXPECT_EQ(exit_code_when([] { throw std::runtime_error("slice unreadable"); }), 0);
}

// Signed bytes combine as signed numbers: rank r holds -1 - r and 1.
TEST_F(host_ranks, signed_bytes_reduce_as_signed_numbers) {
  const std::int8_t mine[2] = {static_cast<std::int8_t>(-1 - comm.rank()), 1};
  std::int8_t low = 0, high = 0;
  reduce(backend, comm, mine, 2, &low, minimum{});
  reduce(backend, comm, mine, 2, &high, maximum{});
  EXPECT_EQ(low, -comm.size());
  EXPECT_EQ(high, 1);
}

TEST_F(host_ranks, sort_refuses_a_bit_range_outside_the_key_on_every_rank) {
  std::vector<std::uint32_t> keys(5, 1u);
  EXPECT_THROW(sort_keys(backend, comm, keys.data(), 5, sort_options{false, 4, 33}), std::invalid_argument);
  EXPECT_THROW(sort_keys(backend, comm, keys.data(), 5, sort_options{false, 0, -1, -1}), std::invalid_argument);
}

TEST_F(host_ranks, sort_refuses_ranks_asking_for_different_parts_on_every_rank) {
  if (comm.size() < 2) GTEST_SKIP() << "needs two ranks";
  std::vector<std::uint32_t> keys(5, 1u);
  EXPECT_THROW(sort_keys(backend, comm, keys.data(), 5, sort_options{false, 0, -1, comm.rank() + 1}),
               std::invalid_argument);
}

// A different direction or bit range would run different rounds of the cut search's collectives.
TEST_F(host_ranks, sort_refuses_ranks_asking_for_different_orders_or_bits_on_every_rank) {
  if (comm.size() < 2) GTEST_SKIP() << "needs two ranks";
  std::vector<std::uint32_t> keys(5, 1u);
  const bool first = comm.rank() == 0;
  EXPECT_THROW(sort_keys(backend, comm, keys.data(), 5, sort_options{first, 0, -1}), std::invalid_argument);
  EXPECT_THROW(sort_keys(backend, comm, keys.data(), 5, sort_options{false, first ? 0 : 8, -1}), std::invalid_argument);
  EXPECT_THROW(sort_keys(backend, comm, keys.data(), 5, sort_options{false, 0, first ? 32 : 16}), std::invalid_argument);
}

TEST(sort_parts, two_from_2_to_the_25_items_a_share_else_one_or_as_asked) {
  constexpr std::int64_t big = std::int64_t{1} << 25;
  EXPECT_EQ(detail::exchange_parts(0, 2 * big, 2), 2);
  EXPECT_EQ(detail::exchange_parts(0, 2 * big - 2, 2), 1);
  EXPECT_EQ(detail::exchange_parts(0, 2 * big - 1, 2), 2);  // shares of 2^25 and 2^25 - 1
  EXPECT_EQ(detail::exchange_parts(0, big - 1, 1), 1);
  EXPECT_EQ(detail::exchange_parts(5, 10, 3), 5);
  const std::vector<std::int64_t> at = detail::part_positions(10, 3, 2);  // shares 4, 3, 3
  EXPECT_EQ(at, (std::vector<std::int64_t>{0, 2, 4, 6, 7, 9, 10}));
}

/// The sort's runs move from 16-item boundaries and land on them (run_exchange.hpp: NCCL copies
/// misaligned runs at under half speed), part by part, and each rank finds every run of a part: the
/// others' inside what it received, its own in place. Runs cut at uneven places, empty runs, a run
/// that ends the slice off a boundary.
TEST_F(host_ranks, the_sorts_runs_move_aligned_by_parts_and_arrive_whole) {
  const int p = comm.size(), r = comm.rank(), parts = 3;
  const std::int64_t n = 1000 + 37 * r;  // every rank's run for part c of rank j: [cuts[j * parts + c], next)
  const int m = p * parts;
  std::vector<std::int64_t> cuts(static_cast<std::size_t>(m) + 1, 0);
  for (int k = 1; k < m; ++k) cuts[static_cast<std::size_t>(k)] = std::min<std::int64_t>(n, 7 * k * k + 3 * r);
  cuts[2] = cuts[1];  // part 1 of rank 0 is empty everywhere
  cuts[static_cast<std::size_t>(m)] = n;
  std::vector<std::int64_t> items(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) items[static_cast<std::size_t>(i)] = r * 100000 + i;  // source and place

  const std::vector<run_exchange_plan> plans = plan_run_exchange(comm, cuts, parts, n);
  // Every rank plans the same parts (or every rank leaves here: the count is the caller's `parts`).
  ASSERT_EQ(static_cast<int>(plans.size()), parts);
  std::vector<std::int64_t> all_cuts(cuts.size() * p);
  comm.allgather_host(cuts.data(), all_cuts.data(), cuts.size() * sizeof(std::int64_t));
  for (int c = 0; c < parts; ++c) {
    const run_exchange_plan& plan = plans[static_cast<std::size_t>(c)];
    for (int j = 0; j < p; ++j) {
      EXPECT_EQ(plan.send_offsets[static_cast<std::size_t>(j)] % 16, 0) << "part " << c << " to rank " << j;
      EXPECT_EQ(plan.recv_offsets[static_cast<std::size_t>(j)] % 16, 0) << "part " << c << " from rank " << j;
      EXPECT_LE(plan.send_offsets[static_cast<std::size_t>(j)] + plan.send_counts[static_cast<std::size_t>(j)], n);
      EXPECT_LE(plan.recv_offsets[static_cast<std::size_t>(j)] + plan.recv_counts[static_cast<std::size_t>(j)],
                plan.recv_size);
    }
    EXPECT_EQ(plan.send_counts[static_cast<std::size_t>(r)], 0) << "a rank's own run stays in place";
    std::vector<std::int64_t> received(static_cast<std::size_t>(plan.recv_size), -1);
    exchange_runs(comm, plan, items.data(), received.data(), backend.exchange_stream());
    for (int i = 0; i < p; ++i) {
      const std::size_t at = static_cast<std::size_t>(i) * (m + 1) + static_cast<std::size_t>(r * parts + c);
      const std::int64_t begin = all_cuts[at], end = all_cuts[at + 1];
      // EXPECT only: a rank leaving the test here would leave the others in the next part's exchange.
      const run_span run = plan.received[static_cast<std::size_t>(i)];
      EXPECT_EQ(run.length, end - begin) << "part " << c << " from rank " << i;
      EXPECT_EQ(run.local, i == r);
      EXPECT_EQ(plan.runs.count(i, r), end - begin);
      if (run.length != end - begin) continue;
      const std::vector<std::int64_t>& holder = run.local ? items : received;
      for (std::int64_t k = 0; k < run.length; ++k)
        if (holder[static_cast<std::size_t>(run.offset + k)] != i * 100000 + begin + k) {
          ADD_FAILURE() << "part " << c << " from rank " << i << ": item " << k << " is "
                        << holder[static_cast<std::size_t>(run.offset + k)] << ", not " << i * 100000 + begin + k;
          break;
        }
    }
  }
}

}  // namespace
}  // namespace lookback::dist::testing
