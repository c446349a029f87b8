// Convolution beside a device memcpy of the same bytes (one read and one write each; CUB has none):
// 1D float with 9 taps at 2^20 to 2^28 samples, and 2D float 5x5 at 2048^2 and 8192^2 pixels.
#include "support/bench_support.cuh"

#include <lookback/primitives/convolution.cuh>

#include <vector>

namespace lookback::bench {
namespace {

void register_1d(std::int64_t n) {
  register_gpu_benchmark(bench_name("convolve1d_9", "lookback", io::dtype::float32, n), [=](benchmark::State& state) {
    const auto* d_in = static_cast<const float*>(random_input(io::dtype::float32, n));
    auto* d_out = static_cast<float*>(scratch(static_cast<std::size_t>(n) * sizeof(float), 0));
    const std::vector<float> mask(9, 1.0f / 9);
    time_gpu(state, 2.0 * static_cast<double>(n) * sizeof(float), n, [&] {
      convolve1d(d_in, d_out, n, mask.data(), 9, boundary::zero, stream());
    });
  });
  register_memcpy("convolve1d_9", io::dtype::float32, n);
}

void register_2d(int side) {
  const std::int64_t n = std::int64_t{side} * side;
  register_gpu_benchmark(bench_name("convolve2d_5x5", "lookback", io::dtype::float32, n), [=](benchmark::State& state) {
    const auto* d_in = static_cast<const float*>(random_input(io::dtype::float32, n));
    auto* d_out = static_cast<float*>(scratch(static_cast<std::size_t>(n) * sizeof(float), 0));
    const std::vector<float> mask(25, 1.0f / 25);
    time_gpu(state, 2.0 * static_cast<double>(n) * sizeof(float), n, [&] {
      convolve2d(d_in, side, d_out, side, side, side, mask.data(), 5, 5, boundary::zero, stream());
    });
  });
  register_memcpy("convolve2d_5x5", io::dtype::float32, n);
}

const bool registered = [] {
  for (const std::int64_t n : sizes) register_1d(n);
  register_2d(2048);
  register_2d(8192);
  return true;
}();

}  // namespace
}  // namespace lookback::bench
