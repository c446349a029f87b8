#pragma once
// Kernel timing for the command's --verify and the benchmarks: CUDA events around stream-ordered work,
// warm-up runs first, the median of the timed runs reported.
//
// The events time what the GPU spends, not how long the host takes to submit: a kernel holds the
// stream (stream_hold) while the work and both events are enqueued, as nvbench's blocking kernel does.
// Without it, a call of a memset and a kernel is timed with the host's submission of the kernel in the
// middle, and at 2^20 items that is a quarter of the row. Work that waits on the GPU itself (a count
// read back, a file written) would wait on the hold; the hold gives up after a while, and the timer
// then times that work without it from then on. LOOKBACK_TIMER_NO_HOLD=1 times without the hold
// throughout, as before it existed, to compare the two.
#include <lookback/primitives/error.cuh>
#include <lookback/primitives/event.cuh>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace lookback::typed {

/// A one-thread kernel on a stream that waits, in host-mapped memory, for the host to let go, or for
/// `timeout_ms` to pass.
class stream_hold {
 public:
  explicit stream_hold(int timeout_ms = 20);
  stream_hold(const stream_hold&) = delete;
  stream_hold& operator=(const stream_hold&) = delete;
  ~stream_hold();

  /// Enqueues the hold on `stream`.
  void hold(cudaStream_t stream);
  /// Lets the held stream go.
  void release();
  /// After the stream has passed the hold: whether it gave up waiting for release().
  bool timed_out() const;

 private:
  int* flags_ = nullptr;  // [0] released, [1] timed out; host-mapped
  int timeout_ms_;
};

class event_timer {
 public:
  /// `hold_timeout_ms`: how long the hold waits for the work's submission before the timer concludes
  /// that the work waits on the GPU.
  explicit event_timer(int hold_timeout_ms = 20) : hold_(hold_timeout_ms) {}
  event_timer(const event_timer&) = delete;
  event_timer& operator=(const event_timer&) = delete;

  /// Milliseconds the stream spent on `work`; waits for it.
  template <class Work>
  float time_ms(cudaStream_t stream, Work&& work) {
    if (holding_) hold_.hold(stream);
    LOOKBACK_CUDA_TRY(cudaEventRecord(start_, stream));
    work();
    LOOKBACK_CUDA_TRY(cudaEventRecord(stop_, stream));
    if (holding_) hold_.release();
    LOOKBACK_CUDA_TRY(cudaEventSynchronize(stop_));
    if (holding_ && hold_.timed_out()) {
      // The work waited on the stream while the hold held it: part of its submission ran under the
      // hold and part not, so this time is neither; time it again, and from now on, without the hold.
      holding_ = false;
      return time_ms(stream, work);
    }
    float ms = 0;
    LOOKBACK_CUDA_TRY(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

  /// Whether the timer still holds the stream (false once some work waited on it).
  bool holding() const { return holding_; }

 private:
  cuda_event start_{cudaEventDefault};
  cuda_event stop_{cudaEventDefault};
  stream_hold hold_;
  bool holding_ = hold_by_default();

  static bool hold_by_default() {
    const char* off = std::getenv("LOOKBACK_TIMER_NO_HOLD");
    return off == nullptr || std::strcmp(off, "1") != 0;
  }
};

template <class Work>
float median_time_ms(cudaStream_t stream, Work&& work, int warmups = 2, int runs = 9) {
  event_timer timer;
  for (int i = 0; i < warmups; ++i) work();
  std::vector<float> ms;
  for (int i = 0; i < runs; ++i) ms.push_back(timer.time_ms(stream, work));
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  return ms[ms.size() / 2];
}

}  // namespace lookback::typed
