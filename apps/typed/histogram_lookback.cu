// Every (sample, counter) instantiation of lookback's even histogram and the range counts, compiled once.
#include "typed/histogram_visit.hpp"

#include <lookback/algorithms/histogram.cuh>
#include <lookback/primitives/device_buffer.cuh>

namespace lookback::typed::detail {

void histogram_even_lookback(const histogram_spec& spec, void* d_temp, std::size_t& temp_bytes, const void* d_samples,
                             std::int64_t n, void* d_histogram, cudaStream_t stream) {
  if (d_temp == nullptr) {
    temp_bytes = 1;
    return;
  }
  visit_histogram_sample(spec.sample, [&](auto zero) {
    using Sample = decltype(zero);
    using level = histogram::level_t<Sample>;
    visit_histogram_counter(spec.counter, [&](auto counter_zero) {
      using Counter = decltype(counter_zero);
      lookback::histogram_even(static_cast<const Sample*>(d_samples), n, static_cast<Counter*>(d_histogram),
                               spec.num_bins, static_cast<level>(spec.lower), static_cast<level>(spec.upper), stream);
    });
  });
}

}  // namespace lookback::typed::detail

namespace lookback::typed {

void range_counts_gpu(io::dtype counter, const void* d_histogram, int num_bins, const int* d_queries,
                      std::int64_t num_queries, void* d_counts, cudaStream_t stream) {
  visit_histogram_counter(counter, [&](auto zero) {
    using Counter = decltype(zero);
    const auto* hist = static_cast<const Counter*>(d_histogram);
    device_buffer<Counter> d_prefix(static_cast<std::size_t>(num_bins) + 1, stream);
    std::size_t temp_bytes = 0;
    histogram_prefix(nullptr, temp_bytes, hist, num_bins, d_prefix.data(), stream);
    device_buffer<std::byte> d_temp(temp_bytes, stream);
    histogram_prefix(d_temp.data(), temp_bytes, hist, num_bins, d_prefix.data(), stream);
    range_counts(d_prefix.data(), num_bins, d_queries, num_queries, static_cast<Counter*>(d_counts), stream);
  });
}

}  // namespace lookback::typed
