#pragma once
// Sample-to-bin maps shared by the GPU kernels and the CPU reference, written to give the same bins
// as cub::DeviceHistogram (HistogramEven, HistogramRange) for the same sample and level types.
// A map returns -1 for a sample it drops (outside the range, or NaN).
#include <cuda_runtime_api.h>  // __host__ __device__ for host compilers too

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace lookback::histogram {

/// Level type: the sample type for floating point, int64 for integer samples (so that an upper level
/// of 256 is expressible for uint8 samples).
template <class Sample>
using level_t = std::conditional_t<std::is_floating_point_v<Sample>, Sample, std::int64_t>;

inline constexpr int max_bins = 1 << 16;

/// Throws std::invalid_argument unless 1 <= num_bins <= max_bins.
inline void check_bins(int num_bins) {
  if (num_bins < 1 || num_bins > max_bins)
    throw std::invalid_argument("number of bins must be between 1 and " + std::to_string(max_bins) + ", not " +
                                std::to_string(num_bins));
}

/// num_bins equal bins over [lower, upper): bin = floor((x - lower) * num_bins / (upper - lower)).
/// Floating point as CUB computes it, (x - lower) * (num_bins / (upper - lower)) in the sample type;
/// a product that rounds up to num_bins for an x just below `upper` counts in the last bin. Integers
/// exactly and without a division per sample. While the range is at most 2^32 (every sample type's
/// own range included): with num_bins = whole * range + part, the bin is offset * whole +
/// floor(offset * part / range), and the second term is the high word of offset times
/// ceil(part * 2^64 / range): that rounding adds under 2^-32 to a fraction at most 1 - 1/range, so the
/// floor never moves. Wider ranges: a float estimate corrected by exact 64-bit products.
template <class Sample>
struct even_bins {
  using level = level_t<Sample>;
  level lower{};
  level upper{};
  int num_bins = 1;
  level reciprocal{};        // floating point
  std::uint64_t range = 1;          // integers: upper - lower
  bool narrow = true;               // integers: range <= 2^32
  std::uint32_t whole = 0;          // narrow integers: num_bins / range
  std::uint64_t part_scale = 0;     // narrow integers: ceil((num_bins % range) * 2^64 / range)
  float approximate_scale{};        // wide integers: num_bins / range

  /// Validates and precomputes; throws std::invalid_argument naming the problem.
  static even_bins make(int num_bins, level lower, level upper) {
    check_bins(num_bins);
    if constexpr (std::is_floating_point_v<Sample>) {
      if (!std::isfinite(lower) || !std::isfinite(upper)) throw std::invalid_argument("histogram range must be finite");
    }
    if (!(lower < upper)) throw std::invalid_argument("histogram range needs lower < upper");
    even_bins b;
    b.lower = lower;
    b.upper = upper;
    b.num_bins = num_bins;
    if constexpr (std::is_floating_point_v<Sample>) {
      const level width = static_cast<level>(upper - lower);
      b.reciprocal = static_cast<level>(static_cast<level>(num_bins) / width);
      // A width or scale that overflows, or a scale that underflows to 0, would turn every bin
      // computation into a conversion of inf or NaN to int.
      if (!std::isfinite(width) || !std::isfinite(b.reciprocal) || b.reciprocal == level{0})
        throw std::invalid_argument("histogram range is too wide or too narrow for the sample type's arithmetic");
    } else {
      b.range = static_cast<std::uint64_t>(upper) - static_cast<std::uint64_t>(lower);
      if (b.range > std::numeric_limits<std::uint64_t>::max() / static_cast<std::uint64_t>(num_bins))
        throw std::invalid_argument("histogram range times the number of bins overflows 64 bits");
      b.approximate_scale = static_cast<float>(num_bins) / static_cast<float>(b.range);
      b.narrow = b.range <= (std::uint64_t{1} << 32);
      if (b.narrow) {
        const auto bins = static_cast<std::uint64_t>(num_bins);
        b.whole = static_cast<std::uint32_t>(bins / b.range);
        const unsigned __int128 part = bins % b.range;
        b.part_scale = static_cast<std::uint64_t>(((part << 64) + b.range - 1) / b.range);
      }
    }
    return b;
  }

  __host__ __device__ int operator()(Sample sample) const {
    const level x = static_cast<level>(sample);
    if constexpr (std::is_floating_point_v<Sample>) {
      if (!(x >= lower && x < upper)) return -1;
      const int bin = static_cast<int>((x - lower) * reciprocal);
      return bin < num_bins ? bin : num_bins - 1;
    } else {
      // Below `lower` the difference wraps past 2^64 - 2^63, beyond any narrow range.
      const std::uint64_t offset = static_cast<std::uint64_t>(x) - static_cast<std::uint64_t>(lower);
      if (narrow) {
        if (offset >= range) return -1;
        const auto offset32 = static_cast<std::uint32_t>(offset);
        return static_cast<int>(offset32 * whole + high_word(offset32, part_scale));
      }
      if (!(x >= lower && x < upper)) return -1;
      return exact_bin(offset, range);
    }
  }

 private:
  /// The high 64 bits of a * b.
  __host__ __device__ static std::uint64_t high_word(std::uint32_t a, std::uint64_t b) {
#ifdef __CUDA_ARCH__
    return __umul64hi(a, b);
#else
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
  }

  /// floor(offset * num_bins / range) for offset < range: the float estimate is off by at most one
  /// or two bins; products in Word's double width settle it, since the exact bin satisfies
  /// bin * range <= offset * num_bins < (bin + 1) * range.
  template <class Word>
  __host__ __device__ int exact_bin(Word offset, Word width) const {
    const std::uint64_t scaled = static_cast<std::uint64_t>(offset) * static_cast<std::uint32_t>(num_bins);
    int bin = static_cast<int>(static_cast<float>(offset) * approximate_scale);
    bin = bin < 0 ? 0 : bin >= num_bins ? num_bins - 1 : bin;
    while (bin > 0 && static_cast<std::uint64_t>(static_cast<Word>(bin)) * width > scaled) --bin;
    while (bin + 1 < num_bins && static_cast<std::uint64_t>(static_cast<Word>(bin + 1)) * width <= scaled) ++bin;
    return bin;
  }
};

/// Bins between caller-given ascending levels (num_bins + 1 of them): the sample falls in bin i when
/// levels[i] <= x < levels[i + 1], found by CUB's upper-bound search.
template <class Sample>
struct range_bins {
  using level = level_t<Sample>;
  const level* levels = nullptr;  // device or shared memory in kernels, host memory on the CPU
  int num_levels = 2;

  __host__ __device__ int operator()(Sample sample) const {
    const level x = static_cast<level>(sample);
    int first = 0;
    int count = num_levels;
    while (count > 0) {
      const int half = count >> 1;
      if (x < levels[first + half]) {
        count = half;
      } else {
        first += half + 1;
        count -= half + 1;
      }
    }
    const int bin = first - 1;
    return bin < num_levels - 1 ? bin : -1;
  }
};

}  // namespace lookback::histogram
