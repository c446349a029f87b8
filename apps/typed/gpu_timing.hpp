#pragma once
// Kernel timing for the command's --verify and the benchmarks: CUDA events around stream-ordered work,
// warm-up runs first, the median of the timed runs reported.
#include <lookback/primitives/error.cuh>

#include <algorithm>
#include <vector>

namespace lookback::typed {

class event_timer {
 public:
  event_timer() {
    LOOKBACK_CUDA_TRY(cudaEventCreate(&start_));
    LOOKBACK_CUDA_TRY(cudaEventCreate(&stop_));
  }
  event_timer(const event_timer&) = delete;
  event_timer& operator=(const event_timer&) = delete;
  ~event_timer() {
    (void)cudaEventDestroy(start_);
    (void)cudaEventDestroy(stop_);
  }

  /// Milliseconds the stream spent on `work`; waits for it.
  template <class Work>
  float time_ms(cudaStream_t stream, Work&& work) {
    LOOKBACK_CUDA_TRY(cudaEventRecord(start_, stream));
    work();
    LOOKBACK_CUDA_TRY(cudaEventRecord(stop_, stream));
    LOOKBACK_CUDA_TRY(cudaEventSynchronize(stop_));
    float ms = 0;
    LOOKBACK_CUDA_TRY(cudaEventElapsedTime(&ms, start_, stop_));
    return ms;
  }

 private:
  cudaEvent_t start_{};
  cudaEvent_t stop_{};
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
