// GoogleTest under mpirun: every rank runs every test; rank 0 prints the usual report, the other ranks
// only their failures, and after each test the ranks agree on which of them failed, so that rank 0's
// report names them. Without mpirun it is one rank.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

class rank_failures : public ::testing::EmptyTestEventListener {
 public:
  explicit rank_failures(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (rank_ != 0 && result.failed())
      std::fprintf(stderr, "[rank %d] %s:%d: %s\n", rank_, result.file_name() ? result.file_name() : "?",
                   result.line_number(), result.summary());
  }
  void OnTestEnd(const ::testing::TestInfo& info) override {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int failed = info.result()->Failed() ? 1 : 0;
    std::vector<int> all(static_cast<std::size_t>(size));
    MPI_Allgather(&failed, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD);
    std::string ranks;
    for (int r = 1; r < size; ++r)
      if (all[static_cast<std::size_t>(r)] != 0) ranks += " " + std::to_string(r);
    if (rank_ == 0 && !ranks.empty())
      std::fprintf(stderr, "%s.%s failed on rank(s)%s\n", info.test_suite_name(), info.name(), ranks.c_str());
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (rank != 0) delete listeners.Release(listeners.default_result_printer());
  listeners.Append(new rank_failures(rank));
  const int result = RUN_ALL_TESTS();
  MPI_Finalize();
  return result;
}
