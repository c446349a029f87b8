#pragma once
// Ranks that are threads of one process (one process driving several GPUs, `--gpus N`): each rank's
// step on a thread of its own, all joined before returning. The steps agree on their failures
// themselves (guarded, communicator.hpp), so that no rank waits in a collective for a failed one;
// here the lowest rank's exception is rethrown once every thread has ended.
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace lookback::dist {

/// step(r) for every rank r in [0, ranks), each on its own thread. No rank steps until every thread
/// exists: a rank whose thread could not start would leave the others waiting in their first
/// collective, so then none steps and the failure to start is thrown.
template <class Step>
void run_rank_threads(int ranks, Step step) {
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(ranks));
  std::vector<std::thread> threads;
  threads.reserve(errors.size());
  std::mutex m;
  std::condition_variable released_cv;
  bool released = false;
  bool every_thread_started = false;
  const auto may_step = [&] {
    std::unique_lock lock(m);
    released_cv.wait(lock, [&] { return released; });
    return every_thread_started;
  };
  std::exception_ptr start_failure;
  try {
    for (int r = 0; r < ranks; ++r)
      threads.emplace_back([&errors, &step, &may_step, r] {
        if (!may_step()) return;
        try {
          step(r);
        } catch (...) {
          errors[static_cast<std::size_t>(r)] = std::current_exception();
        }
      });
  } catch (...) {
    start_failure = std::current_exception();
  }
  {
    const std::lock_guard lock(m);
    released = true;
    every_thread_started = !start_failure;
  }
  released_cv.notify_all();
  for (auto& thread : threads) thread.join();
  if (start_failure) std::rethrow_exception(start_failure);
  for (const auto& error : errors)
    if (error) std::rethrow_exception(error);
}

}  // namespace lookback::dist
