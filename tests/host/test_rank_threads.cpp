// run_rank_threads (lookback/distributed/rank_threads.hpp), which `--gpus N`, the distributed tests and
// the distributed benchmark run their ranks through: every rank's step runs once, on a thread of its
// own, and a failure comes back only after every rank has ended, as the lowest failing rank's.
#include <lookback/distributed/rank_threads.hpp>
#include <lookback/distributed/thread_group.hpp>

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

// thread_group, the `--gpus N` ranks' host-side exchange: every rank gets every rank's bytes in rank
// order; ranks at exchanges of different sizes (one at an agreement, the others at a smaller exchange)
// all throw naming the rank that differs, rather than reading past the smaller slots.
TEST(thread_group, every_rank_gets_every_ranks_bytes_in_order) {
  constexpr int ranks = 4;
  lookback::dist::thread_group group(ranks, std::chrono::milliseconds(10000));
  std::vector<std::vector<int>> got(ranks, std::vector<int>(2 * ranks, -1));
  lookback::dist::run_rank_threads(ranks, [&](int r) {
    for (int round = 0; round < 3; ++round) {
      const int mine[2] = {r, 100 * round + r};
      group.allgather(r, mine, got[static_cast<std::size_t>(r)].data(), sizeof(mine));
      for (int q = 0; q < ranks; ++q) {
        EXPECT_EQ(got[static_cast<std::size_t>(r)][static_cast<std::size_t>(2 * q)], q);
        EXPECT_EQ(got[static_cast<std::size_t>(r)][static_cast<std::size_t>(2 * q + 1)], 100 * round + q);
      }
    }
  });
}

TEST(thread_group, ranks_exchanging_different_sizes_all_throw_naming_the_rank) {
  constexpr int ranks = 3;
  lookback::dist::thread_group group(ranks, std::chrono::milliseconds(10000));
  std::atomic<int> threw{0};
  std::vector<std::string> messages(ranks);
  lookback::dist::run_rank_threads(ranks, [&](int r) {
    std::vector<std::byte> send(r == 2 ? 512 : 16), recv(send.size() * ranks);
    try {
      group.allgather(r, send.data(), recv.data(), send.size());
    } catch (const lookback::dist::dist_error& e) {
      ++threw;
      messages[static_cast<std::size_t>(r)] = e.what();
    }
  });
  EXPECT_EQ(threw.load(), ranks);
  for (const std::string& m : messages) {
    EXPECT_NE(m.find("rank 2"), std::string::npos) << m;
    EXPECT_NE(m.find("512 bytes"), std::string::npos) << m;
  }
  // The group is usable again after the mismatch.
  lookback::dist::run_rank_threads(ranks, [&](int r) {
    int mine = r, all[ranks] = {};
    group.allgather(r, &mine, all, sizeof(mine));
    for (int q = 0; q < ranks; ++q) EXPECT_EQ(all[q], q);
  });
}

}  // namespace
