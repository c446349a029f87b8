// Every (sample, counter) instantiation of the CUB reference histogram, compiled once.
#include "typed/histogram_visit.hpp"

#include <lookback/primitives/error.cuh>

#include <cub/device/device_histogram.cuh>

namespace lookback::typed::detail {

void histogram_even_cub(const histogram_spec& spec, void* d_temp, std::size_t& temp_bytes, const void* d_samples,
                        std::int64_t n, void* d_histogram, cudaStream_t stream) {
  visit_histogram_sample(spec.sample, [&](auto zero) {
    using Sample = decltype(zero);
    using level = histogram::level_t<Sample>;
    visit_histogram_counter(spec.counter, [&](auto counter_zero) {
      using Counter = decltype(counter_zero);
      LOOKBACK_CUDA_TRY(cub::DeviceHistogram::HistogramEven(
          d_temp, temp_bytes, static_cast<const Sample*>(d_samples), static_cast<Counter*>(d_histogram),
          spec.num_bins + 1, static_cast<level>(spec.lower), static_cast<level>(spec.upper), n, stream));
    });
  });
}

}  // namespace lookback::typed::detail
