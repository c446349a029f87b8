// run_rank_threads (lookback/distributed/rank_threads.hpp), which `--gpus N`, the distributed tests and
// the distributed benchmark run their ranks through: every rank's step runs once, on a thread of its
// own, and a failure comes back only after every rank has ended, as the lowest failing rank's.
#include <lookback/distributed/rank_threads.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

TEST(rank_threads, every_rank_runs_once_on_its_own_thread) {
  constexpr int ranks = 5;
  std::vector<int> runs(ranks, 0);
  std::set<std::thread::id> threads;
  std::mutex mutex;
  lookback::dist::run_rank_threads(ranks, [&](int r) {
    const std::lock_guard<std::mutex> lock(mutex);
    ++runs[static_cast<std::size_t>(r)];
    threads.insert(std::this_thread::get_id());
  });
  EXPECT_EQ(runs, std::vector<int>(ranks, 1));
  EXPECT_EQ(threads.size(), static_cast<std::size_t>(ranks));
  EXPECT_EQ(threads.count(std::this_thread::get_id()), 0u);
}

TEST(rank_threads, a_failure_returns_after_every_rank_as_the_lowest_failing_ranks) {
  std::atomic<int> finished{0};
  try {
    lookback::dist::run_rank_threads(4, [&](int r) {
      if (r == 3) throw std::runtime_error("rank 3 failed");
      if (r == 1) throw std::runtime_error("rank 1 failed");
      std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the others end later
      ++finished;
    });
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "rank 1 failed");
  }
  EXPECT_EQ(finished.load(), 2);
}

TEST(rank_threads, no_ranks_run_nothing) {
  int runs = 0;
  lookback::dist::run_rank_threads(0, [&](int) { ++runs; });
  EXPECT_EQ(runs, 0);
}

}  // namespace
