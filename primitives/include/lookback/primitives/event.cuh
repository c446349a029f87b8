#pragma once
// An owning CUDA event for ordering streams, and one stream waiting for another's work so far.
#include <lookback/primitives/error.cuh>

#include <utility>

namespace lookback {

class cuda_event {
 public:
  cuda_event() : cuda_event(cudaEventDisableTiming) {}
  /// cudaEventDefault makes an event that times.
  explicit cuda_event(unsigned flags) { LOOKBACK_CUDA_TRY(cudaEventCreateWithFlags(&event_, flags)); }
  cuda_event(const cuda_event&) = delete;
  cuda_event& operator=(const cuda_event&) = delete;
  cuda_event(cuda_event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  ~cuda_event() {
    if (event_ != nullptr) (void)cudaEventDestroy(event_);
  }
  [[nodiscard]] cudaEvent_t get() const noexcept { return event_; }
  operator cudaEvent_t() const noexcept { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

/// Work enqueued on `waiting` from now on starts after what `on` holds now (`event` is recorded).
inline void wait_for(cudaStream_t waiting, cudaStream_t on, const cuda_event& event) {
  LOOKBACK_CUDA_TRY(cudaEventRecord(event.get(), on));
  LOOKBACK_CUDA_TRY(cudaStreamWaitEvent(waiting, event.get(), 0));
}

}  // namespace lookback
