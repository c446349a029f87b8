// Even histogram of uint32 samples: lookback and CUB beside a device memcpy of the same bytes, for
// uniform samples in [0, 1000) into 256 and 4096 bins, for samples all in one bin, and for samples over
// all 32 bits into 256 bins over [0, 2^32) (the case the issue's CUB time was taken on).
#include "support/bench_support.cuh"
#include "typed/histogram_ops.hpp"

namespace lookback::bench {
namespace {

struct histogram_case {
  const char* label;
  int bins;
  bool one_bin;
  bool all_bits;
};

const histogram_case cases[] = {{"histogram256", 256, false, false},
                                {"histogram4096", 4096, false, false},
                                {"histogram256_one_bin", 256, true, false},
                                {"histogram256_all_bits", 256, false, true}};

void register_case(const histogram_case& c, typed::implementation impl, std::int64_t n) {
  register_gpu_benchmark(
      bench_name(c.label, std::string(typed::implementation_name(impl)).c_str(), io::dtype::uint32, n),
      [=](benchmark::State& state) {
        const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(std::uint32_t);
        const void* d_in = random_input(io::dtype::uint32, n, c.all_bits ? spread::all_bits : spread::small_integers);
        if (c.one_bin) {
          void* d_zeros = scratch(bytes, 3);
          LOOKBACK_CUDA_TRY(cudaMemsetAsync(d_zeros, 0, bytes, stream()));
          d_in = d_zeros;
        }
        const double upper = c.all_bits ? 4294967296.0 : 1000.0;
        const typed::histogram_spec spec{io::dtype::uint32, io::dtype::uint32, c.bins, 0.0, upper};
        void* d_hist = scratch(static_cast<std::size_t>(c.bins) * sizeof(std::uint32_t), 1);
        std::size_t temp_bytes = 0;
        typed::histogram_even(impl, spec, nullptr, temp_bytes, d_in, n, d_hist, stream());
        void* d_temp = scratch(temp_bytes, 2);
        time_gpu(state, static_cast<double>(bytes), n,
                 [&] { typed::histogram_even(impl, spec, d_temp, temp_bytes, d_in, n, d_hist, stream()); });
      });
}

const bool registered = [] {
  for (const histogram_case& c : cases)
    for (const std::int64_t n : sizes) {
      register_case(c, typed::implementation::lookback, n);
      register_case(c, typed::implementation::cub, n);
      register_memcpy(c.label, io::dtype::uint32, n);
    }
  return true;
}();

}  // namespace
}  // namespace lookback::bench
