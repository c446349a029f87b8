// The FIR filter: the direct tiled kernel against FFT overlap-save across tap counts at 2^24 float
// samples (the "_tune" rows that place policy::fir::fft_from_taps), and fir_filter_auto with 1024 taps
// over 2^26 samples, the case the issue races against cupyx.scipy.signal.oaconvolve.
#include "support/bench_support.cuh"

#include <lookback/algorithms/fir.cuh>

#include <string>
#include <vector>

namespace lookback::bench {
namespace {

std::vector<float> lowpass_like(int taps) { return std::vector<float>(static_cast<std::size_t>(taps), 1.0f / taps); }

void register_switch_point(int taps, std::int64_t n) {
  const std::string op = "fir_" + std::to_string(taps) + "taps_tune";
  register_gpu_benchmark(bench_name(op.c_str(), "direct", io::dtype::float32, n), [=](benchmark::State& state) {
    const auto* d_in = static_cast<const float*>(random_input(io::dtype::float32, n));
    auto* d_out = static_cast<float*>(scratch(static_cast<std::size_t>(n) * sizeof(float), 0));
    const auto h = lowpass_like(taps);
    time_gpu(state, 2.0 * static_cast<double>(n) * sizeof(float), n,
             [&] { fir_filter(d_in, d_out, n, h.data(), taps, stream()); });
  });
  register_gpu_benchmark(bench_name(op.c_str(), "fft", io::dtype::float32, n), [=](benchmark::State& state) {
    const auto* d_in = static_cast<const float*>(random_input(io::dtype::float32, n));
    auto* d_out = static_cast<float*>(scratch(static_cast<std::size_t>(n) * sizeof(float), 0));
    const auto h = lowpass_like(taps);
    overlap_save_filter<float> filter(h.data(), taps, n, stream());
    time_gpu(state, 2.0 * static_cast<double>(n) * sizeof(float), n, [&] { filter(d_in, d_out, n, stream()); });
  });
}

void register_auto(int taps, std::int64_t n) {
  const std::string op = "fir_" + std::to_string(taps) + "taps";
  register_gpu_benchmark(bench_name(op.c_str(), "lookback", io::dtype::float32, n), [=](benchmark::State& state) {
    const auto* d_in = static_cast<const float*>(random_input(io::dtype::float32, n));
    auto* d_out = static_cast<float*>(scratch(static_cast<std::size_t>(n) * sizeof(float), 0));
    const auto h = lowpass_like(taps);
    // Plans and the filter's spectrum made once, as a streaming caller (and CuPy's plan cache) does.
    overlap_save_filter<float> filter(h.data(), taps, n, stream());
    time_gpu(state, 2.0 * static_cast<double>(n) * sizeof(float), n, [&] {
      if (taps < policy::fir::fft_from_taps)
        fir_filter(d_in, d_out, n, h.data(), taps, stream());
      else
        filter(d_in, d_out, n, stream());
    });
  });
  register_memcpy(op.c_str(), io::dtype::float32, n);
}

const bool registered = [] {
  for (const int taps : {16, 32, 64, 96, 128, 192, 256, 512, 1024, 4096}) register_switch_point(taps, std::int64_t{1} << 24);
  register_auto(1024, std::int64_t{1} << 26);
  return true;
}();

}  // namespace
}  // namespace lookback::bench
