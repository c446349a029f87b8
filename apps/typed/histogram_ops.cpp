#include "typed/histogram_ops.hpp"

#include "typed/histogram_visit.hpp"

#include <lookback/algorithms/cpu/histogram.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace lookback::typed {

bool is_histogram_sample(io::dtype type) {
  switch (type) {
    case io::dtype::uint8: case io::dtype::uint16: case io::dtype::int32:
    case io::dtype::uint32: case io::dtype::float32: case io::dtype::float64: return true;
    default: return false;
  }
}

std::string histogram_sample_list() { return "uint8, uint16, int32, uint32, float32, float64"; }

bool is_histogram_counter(io::dtype type) { return type == io::dtype::uint32 || type == io::dtype::uint64; }

std::string bins_problem(int num_bins) {
  if (num_bins >= 1 && num_bins <= histogram::max_bins) return {};
  return "--bins must be between 1 and " + std::to_string(histogram::max_bins) + ", not " + std::to_string(num_bins);
}

std::string histogram_spec_problem(const histogram_spec& spec) {
  if (std::string problem = bins_problem(spec.num_bins); !problem.empty()) return problem;
  if (!std::isfinite(spec.lower) || !std::isfinite(spec.upper)) return "--range must be finite";
  if (!(spec.lower < spec.upper)) return "--range needs LO < HI";
  const bool integral_samples = visit_histogram_sample(spec.sample, [](auto zero) {
    return std::numeric_limits<decltype(zero)>::is_integer;
  });
  if (integral_samples) {
    const double limit = 9.0e18;  // inside int64, the integer samples' level type
    if (spec.lower != std::floor(spec.lower) || spec.upper != std::floor(spec.upper) || std::abs(spec.lower) > limit ||
        std::abs(spec.upper) > limit)
      return "--range must be whole numbers for integer samples";
  } else if (spec.sample == io::dtype::float32 &&
             (std::isinf(static_cast<float>(spec.lower)) || std::isinf(static_cast<float>(spec.upper)))) {
    return "--range does not fit float32 samples";
  }
  // What is left (bounds that collapse or overflow in the sample's arithmetic) the bin map itself
  // refuses; asking it keeps one definition of a valid range.
  try {
    visit_histogram_sample(spec.sample, [&](auto zero) { (void)even_bins_of<decltype(zero)>(spec); });
  } catch (const std::invalid_argument& e) {
    char range[80];
    std::snprintf(range, sizeof range, "--range %.9g:%.9g: ", spec.lower, spec.upper);
    return range + std::string(e.what());
  }
  return {};
}

void histogram_even_cpu(const histogram_spec& spec, const void* samples, std::int64_t n, void* out) {
  visit_histogram_sample(spec.sample, [&](auto zero) {
    using Sample = decltype(zero);
    visit_histogram_counter(spec.counter, [&](auto counter_zero) {
      using Counter = decltype(counter_zero);
      const auto counts = cpu::histogram<Counter>(static_cast<const Sample*>(samples), n, spec.num_bins,
                                                  even_bins_of<Sample>(spec));
      std::memcpy(out, counts.data(), counts.size() * sizeof(Counter));
    });
  });
}

std::vector<std::uint64_t> range_counts_cpu(io::dtype counter, const void* histogram, int num_bins,
                                            const std::vector<int>& queries) {
  return visit_histogram_counter(counter, [&](auto zero) {
    using Counter = decltype(zero);
    const auto* h = static_cast<const Counter*>(histogram);
    std::vector<Counter> prefix(static_cast<std::size_t>(num_bins) + 1, 0);
    for (int i = 0; i < num_bins; ++i) prefix[i + 1] = static_cast<Counter>(prefix[i] + h[i]);
    std::vector<std::uint64_t> counts;
    for (std::size_t q = 0; q + 1 < queries.size(); q += 2) {
      const int a = queries[q], b = queries[q + 1];
      // As on the device: a query outside the bins counts nothing.
      const bool valid = 0 <= a && a <= b && b < num_bins;
      counts.push_back(valid ? static_cast<Counter>(prefix[b + 1] - prefix[a]) : Counter{0});
    }
    return counts;
  });
}

}  // namespace lookback::typed
