#pragma once
// CPU reference histogram: one pass with the same bin maps as the GPU.
#include <lookback/algorithms/histogram/bin_mapping.cuh>

#include <cstdint>
#include <vector>

namespace lookback::cpu {

template <class Counter, class Sample, class BinMap>
std::vector<Counter> histogram(const Sample* samples, std::int64_t n, int num_bins, const BinMap& bin_of) {
  std::vector<Counter> counts(static_cast<std::size_t>(num_bins), Counter{0});
  for (std::int64_t i = 0; i < n; ++i) {
    const int bin = bin_of(samples[i]);
    if (bin >= 0) ++counts[static_cast<std::size_t>(bin)];
  }
  return counts;
}

}  // namespace lookback::cpu
