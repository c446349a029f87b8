#pragma once
// Compile-time types for histogram sample and counter dtypes.
#include "typed/histogram_ops.hpp"

#include <lookback/algorithms/histogram/bin_mapping.cuh>

#include <cstdint>
#include <stdexcept>

namespace lookback::typed {

template <class F>
decltype(auto) visit_histogram_sample(io::dtype type, F&& f) {
  switch (type) {
    case io::dtype::uint8: return f(std::uint8_t{});
    case io::dtype::uint16: return f(std::uint16_t{});
    case io::dtype::int32: return f(std::int32_t{});
    case io::dtype::uint32: return f(std::uint32_t{});
    case io::dtype::float32: return f(float{});
    case io::dtype::float64: return f(double{});
    default:
      throw std::invalid_argument("dtype " + std::string(io::dtype_name(type)) +
                                  " is not a histogram sample type (supported: " + histogram_sample_list() + ")");
  }
}

template <class F>
decltype(auto) visit_histogram_counter(io::dtype type, F&& f) {
  switch (type) {
    case io::dtype::uint32: return f(static_cast<unsigned>(0));
    case io::dtype::uint64: return f(static_cast<unsigned long long>(0));
    default: throw std::invalid_argument("histogram counters are uint32 or uint64");
  }
}

template <class Sample>
histogram::even_bins<Sample> even_bins_of(const histogram_spec& spec) {
  using level = histogram::level_t<Sample>;
  return histogram::even_bins<Sample>::make(spec.num_bins, static_cast<level>(spec.lower), static_cast<level>(spec.upper));
}

}  // namespace lookback::typed
