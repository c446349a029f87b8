#pragma once
// The host-side exchange of ranks that are threads of one process (one process driving several GPUs):
// what MPI_Allgather is to ranks that are processes. Every wait is bounded by the timeout.
#include <lookback/distributed/dist_error.hpp>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace lookback::dist {

class thread_group {
 public:
  thread_group(int ranks, std::chrono::milliseconds timeout) : ranks_(ranks), timeout_(timeout), slots_(ranks) {}

  [[nodiscard]] int size() const noexcept { return ranks_; }

  /// Called by every rank's thread with the same `bytes`: recv gets every rank's send, in rank order.
  void allgather(int rank, const void* send, void* recv, std::size_t bytes) {
    std::unique_lock<std::mutex> lock(mutex_);
    wait(lock, rank, [&] { return !draining_; });
    slots_[static_cast<std::size_t>(rank)].assign(static_cast<const std::byte*>(send),
                                                  static_cast<const std::byte*>(send) + bytes);
    const std::size_t round = round_;
    if (++arrived_ == ranks_) {
      draining_ = true;
      ++round_;
      changed_.notify_all();
    } else {
      wait(lock, rank, [&] { return round_ != round; });
    }
    // Ranks at different exchanges (one at an agreement, the others at a smaller all-gather) send
    // different sizes: every rank names the first that differs from rank 0, rather than reading past
    // the smaller slots.
    int differing = -1;
    for (int r = 0; r < ranks_ && differing < 0; ++r)
      if (slots_[static_cast<std::size_t>(r)].size() != slots_[0].size()) differing = r;
    if (differing < 0)
      for (int r = 0; r < ranks_; ++r)
        std::memcpy(static_cast<std::byte*>(recv) + static_cast<std::size_t>(r) * bytes,
                    slots_[static_cast<std::size_t>(r)].data(), bytes);
    const std::size_t first_bytes = slots_[0].size();
    const std::size_t other_bytes = differing < 0 ? 0 : slots_[static_cast<std::size_t>(differing)].size();
    if (++drained_ == ranks_) {
      arrived_ = drained_ = 0;
      draining_ = false;
      changed_.notify_all();
    }
    if (differing >= 0)
      throw dist_error(differing, "exchanged " + std::to_string(other_bytes) + " bytes where rank 0 exchanged " +
                                      std::to_string(first_bytes) + ": the ranks are at different steps");
  }

 private:
  template <class Ready>
  void wait(std::unique_lock<std::mutex>& lock, int rank, Ready ready) {
    if (!changed_.wait_for(lock, timeout_, ready))
      throw dist_error(rank, "timed out after " + std::to_string(timeout_.count() / 1000) +
                               " s waiting for the other ranks (threads) to exchange");
  }

  int ranks_;
  std::chrono::milliseconds timeout_;
  std::vector<std::vector<std::byte>> slots_;
  std::mutex mutex_;
  std::condition_variable changed_;
  int arrived_ = 0;
  int drained_ = 0;
  bool draining_ = false;
  std::size_t round_ = 0;
};

/// How long a rank waits for the others before it gives up: LOOKBACK_DIST_TIMEOUT seconds, else 600.
inline std::chrono::milliseconds default_timeout() {
  if (const char* text = std::getenv("LOOKBACK_DIST_TIMEOUT"); text != nullptr && *text != '\0') {
    char* end = nullptr;
    const double seconds = std::strtod(text, &end);
    if (end != text && *end == '\0' && seconds > 0) return std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
  }
  return std::chrono::seconds(600);
}

}  // namespace lookback::dist
