// The timer behind the benchmarks and the command's --verify times what the GPU spends: the host's
// time between two submissions is not in it, and work that waits on the GPU itself neither hangs on
// the stream hold nor keeps it.
#include "support/gpu_test.hpp"
#include "typed/gpu_timing.hpp"

#include <lookback/primitives/device_buffer.cuh>
#include <lookback/primitives/stream.cuh>

#include <chrono>
#include <cstddef>
#include <thread>

namespace lookback::test {
namespace {

class gpu_timing : public gpu_test {
 protected:
  void SetUp() override {
    gpu_test::SetUp();
    if (!IsSkipped() && !typed::event_timer().holding()) GTEST_SKIP() << "LOOKBACK_TIMER_NO_HOLD=1 turns the hold off";
  }
};

constexpr std::size_t bytes = std::size_t{1} << 20;

TEST_F(gpu_timing, TheHostsTimeBetweenSubmissionsIsNotTimed) {
  cuda_stream stream;
  device_buffer<unsigned char> d(bytes, stream.get());
  // A hold of seconds, so that a slow host (under a sanitizer) still submits inside it.
  typed::event_timer timer(5000);
  const auto two_memsets = [&](int host_ms) {
    return timer.time_ms(stream.get(), [&] {
      LOOKBACK_CUDA_TRY(cudaMemsetAsync(d.data(), 1, bytes, stream.get()));
      std::this_thread::sleep_for(std::chrono::milliseconds(host_ms));
      LOOKBACK_CUDA_TRY(cudaMemsetAsync(d.data(), 2, bytes, stream.get()));
    });
  };
  const float without_gap = two_memsets(0);
  // 100 ms of host time between the two memsets: the GPU spends no more than without it, which is what
  // the timer must report (a sanitizer slows both alike).
  const float with_gap = two_memsets(100);
  EXPECT_TRUE(timer.holding());
  EXPECT_GT(with_gap, 0.0f);
  EXPECT_LT(with_gap, without_gap + 50.0f) << "the host's 100 ms between the two memsets was timed";
}

TEST_F(gpu_timing, WorkThatWaitsOnTheStreamIsTimedWithoutTheHold) {
  cuda_stream stream;
  device_buffer<unsigned char> d(bytes, stream.get());
  typed::event_timer timer;
  const auto waits = [&] {
    LOOKBACK_CUDA_TRY(cudaMemsetAsync(d.data(), 3, bytes, stream.get()));
    LOOKBACK_CUDA_TRY(cudaStreamSynchronize(stream.get()));
  };
  EXPECT_GT(timer.time_ms(stream.get(), waits), 0.0f);
  EXPECT_FALSE(timer.holding());
  EXPECT_GT(timer.time_ms(stream.get(), waits), 0.0f);  // and the next call does not wait on a hold
}

}  // namespace
}  // namespace lookback::test
