// lookback::dist on the CPU backend with MPI between the ranks: every function against the sequential
// result, under mpirun -np 2, 3 and 4 in CI (tests/CMakeLists.txt).
#include "distributed/dist_cases.hpp"
#include "distributed/typed_cases.hpp"

#include <lookback/distributed/host_backend.hpp>
#include <lookback/distributed/mpi_communicator.hpp>

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

}  // namespace
}  // namespace lookback::dist::testing
