#pragma once
// Ranks that are threads of one process (one process driving several GPUs, `--gpus N`): each rank's
// step on a thread of its own, all joined before returning. The steps agree on their failures
// themselves (guarded, communicator.hpp), so that no rank waits in a collective for a failed one;
// here the lowest rank's exception is rethrown once every thread has ended.
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace lookback::dist {

/// step(r) for every rank r in [0, ranks), each on its own thread.
template <class Step>
void run_rank_threads(int ranks, Step step) {
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(ranks));
  std::vector<std::thread> threads;
  threads.reserve(errors.size());
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&errors, &step, r] {
      try {
        step(r);
      } catch (...) {
        errors[static_cast<std::size_t>(r)] = std::current_exception();
      }
    });
  for (auto& thread : threads) thread.join();
  for (const auto& error : errors)
    if (error) std::rethrow_exception(error);
}

}  // namespace lookback::dist
