// Histogram policies side by side (block size, loads in flight, privatised copies, warp aggregation)
// on uint32 samples in [0, 1000) into 256 bins, uniform and all in one bin, for choosing
// policy::histogram. Not part of the main table; run with --benchmark_filter=histogram_tune.
#include "support/bench_support.cuh"

#include <lookback/algorithms/histogram.cuh>

namespace lookback::bench {
namespace {

using policy::histogram_config;

template <class Policy>
void register_policy(const char* label, bool one_bin) {
  const std::int64_t n = std::int64_t{1} << 28;
  const std::string name = std::string(label) + (one_bin ? "_one_bin" : "");
  register_gpu_benchmark(bench_name("histogram_tune", name.c_str(), io::dtype::uint32, n), [=](benchmark::State& state) {
    const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(std::uint32_t);
    const auto* d_in = static_cast<const std::uint32_t*>(random_input(io::dtype::uint32, n));
    if (one_bin) {
      void* d_zeros = scratch(bytes, 3);
      LOOKBACK_CUDA_TRY(cudaMemsetAsync(d_zeros, 0, bytes, stream()));
      d_in = static_cast<const std::uint32_t*>(d_zeros);
    }
    auto* d_hist = static_cast<unsigned*>(scratch(256 * sizeof(unsigned), 1));
    const auto bins = histogram::even_bins<std::uint32_t>::make(256, 0, 1000);
    time_gpu(state, static_cast<double>(bytes), n, [&] {
      histogram::detail::run_with_policy<Policy>(d_in, n, d_hist, 256, bins, stream());
    });
  });
}

template <class Policy>
void register_both(const char* label) {
  register_policy<Policy>(label, false);
  register_policy<Policy>(label, true);
}

const bool registered = [] {
  constexpr int kib = 1024;
  register_both<histogram_config<256, 4, 96 * kib, true>>("256x4_8copies_vote");
  register_both<histogram_config<512, 4, 96 * kib, false>>("512x4_16copies");
  register_both<histogram_config<256, 8, 96 * kib, false>>("256x8_8copies");
  register_both<histogram_config<256, 4, 96 * kib, false>>("256x4_8copies");
  register_both<histogram_config<256, 4, 1 * kib, true>>("256x4_1copy_vote");
  register_both<histogram_config<256, 4, 2 * kib, true>>("256x4_2copies_vote");
  register_both<histogram_config<256, 2, 96 * kib, true>>("256x2_8copies_vote");
  register_both<histogram_config<256, 8, 96 * kib, true>>("256x8_8copies_vote");
  register_both<histogram_config<512, 4, 96 * kib, true>>("512x4_16copies_vote");
  register_both<histogram_config<128, 4, 96 * kib, false>>("128x4_4copies");
  return true;
}();

}  // namespace
}  // namespace lookback::bench
