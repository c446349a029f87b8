// The FIR filter's FFT overlap-save path against a long-double direct sum: float and double, filters
// of a few hundred to thousands of taps, lengths around the segment step and the batch; a filter
// object reused over calls of several lengths; fir_filter_auto on either side of its switch; and both
// paths past 2^31 samples.
#include "support/gpu_test.hpp"
#include "support/random_values.hpp"
#include "support/real_data.hpp"
#include "support/test_sizes.hpp"

#include <lookback/algorithms/fir.cuh>
#include <lookback/primitives/device_buffer.cuh>
#include <lookback/primitives/stream.cuh>

#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

namespace lookback::test {
namespace {

template <class T>
std::vector<long double> causal_fir(const std::vector<T>& x, const std::vector<T>& h) {
  std::vector<long double> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    for (std::size_t k = 0; k < h.size() && k <= i; ++k) y[i] += static_cast<long double>(h[k]) * x[i - k];
  return y;
}

/// FFT convolution's error grows with the transform's depth and the energy in one segment, not with
/// the tap count: a few roundings per stage times ||h|| * ||x over a segment|| (inputs in [-1, 1]).
template <class T>
long double fft_tolerance(const std::vector<T>& h, int fft_size) {
  long double h_norm = 0;
  for (const T v : h) h_norm += static_cast<long double>(v) * v;
  return 2 * std::numeric_limits<T>::epsilon() * std::log2(static_cast<long double>(fft_size)) * std::sqrt(h_norm) *
         std::sqrt(static_cast<long double>(fft_size));
}

template <class T>
class fir_fft : public gpu_test {};
TYPED_TEST_SUITE(fir_fft, real_types);

TYPED_TEST(fir_fft, overlap_save_matches_the_direct_sum) {
  using T = TypeParam;
  for (const int taps : {128, 257, 1025, 5000}) {
    const int size = policy::fir::fft_size(taps);
    const std::int64_t step = size - taps + 1;
    for (const std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{31}, std::int64_t{32}, std::int64_t{33},
                                 std::int64_t{1000}, step - 1, step, step + 1, 3 * step + 17, std::int64_t{100003}}) {
      if (n > max_test_size()) continue;
      auto rng = make_rng(static_cast<std::uint64_t>(taps) * 31 + static_cast<std::uint64_t>(n));
      const auto x = random_reals<T>(static_cast<std::size_t>(n), rng);
      const auto h = random_reals<T>(static_cast<std::size_t>(taps), rng);
      const cuda_stream stream;
      const auto d_x = to_device(x, stream);
      device_buffer<T> d_y(x.size(), stream);
      poison(d_y);
      overlap_save_filter<T> filter(h.data(), taps, n, stream.get());
      ASSERT_EQ(filter.fft_size(), size);
      filter(d_x.data(), d_y.data(), n, stream.get());
      expect_within(causal_fir(x, h), to_host(d_y), fft_tolerance(h, size),
                    "overlap-save taps=" + std::to_string(taps) + " n=" + std::to_string(n));
      if (this->HasFailure()) return;
    }
  }
}

TYPED_TEST(fir_fft, one_filter_serves_many_calls_and_batches) {
  using T = TypeParam;
  const int taps = 300;
  const int size = policy::fir::fft_size(taps);
  const std::int64_t max_n = std::min<std::int64_t>(max_test_size(), 20 * (size - taps + 1) + 5);
  auto rng = make_rng(77);
  const auto h = random_reals<T>(static_cast<std::size_t>(taps), rng);
  const cuda_stream stream;
  // Three segments a batch, so longer calls take several batches.
  overlap_save_filter<T> filter(h.data(), taps, max_n, stream.get(), 3 * (std::int64_t{size} + 2));
  ASSERT_EQ(filter.batch(), std::min<std::int64_t>(3, (max_n + size - taps) / (size - taps + 1)));
  for (const std::int64_t n : {max_n, std::int64_t{1}, max_n / 2 + 1, max_n}) {
    const auto x = random_reals<T>(static_cast<std::size_t>(n), rng);
    const auto d_x = to_device(x, stream);
    device_buffer<T> d_y(x.size(), stream);
    poison(d_y);
    filter(d_x.data(), d_y.data(), n, stream.get());
    expect_within(causal_fir(x, h), to_host(d_y), fft_tolerance(h, size), "reused filter n=" + std::to_string(n));
    if (this->HasFailure()) return;
  }
}

TYPED_TEST(fir_fft, auto_picks_a_method_either_side_of_the_switch) {
  using T = TypeParam;
  const std::int64_t n = std::min<std::int64_t>(max_test_size(), 50000);
  for (const int taps : {1, policy::fir::fft_from_taps - 1, policy::fir::fft_from_taps, 2000}) {
    auto rng = make_rng(static_cast<std::uint64_t>(taps));
    const auto x = random_reals<T>(static_cast<std::size_t>(n), rng);
    const auto h = random_reals<T>(static_cast<std::size_t>(taps), rng);
    const cuda_stream stream;
    const auto d_x = to_device(x, stream);
    device_buffer<T> d_y(x.size(), stream);
    poison(d_y);
    fir_filter_auto(d_x.data(), d_y.data(), n, h.data(), taps, stream.get());
    const long double direct = 2 * std::numeric_limits<T>::epsilon() * static_cast<long double>(taps);
    const std::vector<T> got = to_host(d_y);
    expect_within(causal_fir(x, h), got, std::max(direct, fft_tolerance(h, policy::fir::fft_size(taps))),
                  "fir_filter_auto taps=" + std::to_string(taps));
    // Each method gives the same bits on every call, so the picked one shows: the output is its bits.
    const bool fft = taps >= policy::fir::fft_from_taps;
    device_buffer<T> d_method(x.size(), stream);
    poison(d_method);
    if (fft)
      overlap_save_filter<T>(h.data(), taps, n, stream.get())(d_x.data(), d_method.data(), n, stream.get());
    else
      fir_filter(d_x.data(), d_method.data(), n, h.data(), taps, stream.get());
    const std::vector<T> by_method = to_host(d_method);
    EXPECT_EQ(std::memcmp(by_method.data(), got.data(), got.size() * sizeof(T)), 0)
        << "taps=" << taps << ": not the bits of " << (fft ? "overlap-save" : "the direct filter");
    if (this->HasFailure()) return;
  }
  EXPECT_THROW(overlap_save_filter<T>(nullptr, 0, 10), std::invalid_argument);
  // Its plans run on the stream it was built on: a call on another is refused, as is a negative count.
  const std::vector<T> h(300, T(1));
  const cuda_stream built, other;
  overlap_save_filter<T> filter(h.data(), 300, 1000, built.get());
  device_buffer<T> d_x(1000, built), d_y(1000, built);
  EXPECT_THROW(filter(d_x.data(), d_y.data(), 1000, other.get()), std::invalid_argument);
  EXPECT_THROW(filter(d_x.data(), d_y.data(), -1, built.get()), std::invalid_argument);
  EXPECT_THROW(fir_filter_auto(d_x.data(), d_y.data(), -1, h.data(), 300, built.get()), std::invalid_argument);
}

class fir_large : public gpu_test {};

// Past 2^31 samples (64-bit segment offsets, the history carried across the 2^31 boundary): the FFT
// overlap-save path and the direct one, every output against a double-precision sum; run in the
// bundle's huge step.
TEST_F(fir_large, DISABLED_past_2_pow_31_samples) {
  const std::int64_t n = (std::int64_t{1} << 31) + 4099;
  constexpr int taps = 16;
  auto rng = make_rng(41);
  const auto x = quick_random_values<float>(n, rng, [](std::uint32_t word) {
    return static_cast<float>(word >> 8) * (1.0f / 8388608.0f) - 1.0f;  // [-1, 1)
  });
  const auto h = random_reals<float>(taps, rng);
  const cuda_stream stream;
  const auto d_x = to_device(x, stream);
  device_buffer<float> d_y(x.size(), stream);
  const auto check = [&](const std::string& path, double tolerance) {
    const std::vector<float> y = to_host(d_y);
    for (std::int64_t i = 0; i < n; ++i) {
      double want = 0;
      for (int k = 0; k < taps && k <= i; ++k)
        want += static_cast<double>(h[static_cast<std::size_t>(k)]) * x[static_cast<std::size_t>(i - k)];
      ASSERT_NEAR(y[static_cast<std::size_t>(i)], want, tolerance) << path << " element " << i;
    }
  };
  poison(d_y);
  overlap_save_filter<float>(h.data(), taps, n, stream.get())(d_x.data(), d_y.data(), n, stream.get());
  check("overlap-save", static_cast<double>(fft_tolerance(h, policy::fir::fft_size(taps))));
  // The direct sum rounds once a tap: within taps * epsilon * sum |h| of the exact value (|x| <= 1).
  double h_sum = 0;
  for (const float v : h) h_sum += std::fabs(v);
  poison(d_y);
  fir_filter(d_x.data(), d_y.data(), n, h.data(), taps, stream.get());
  check("direct", taps * std::numeric_limits<float>::epsilon() * h_sum);
  std::cout << "FIR filter of " << n << " floats, " << taps << " taps, overlap-save and direct: every output checked\n";
}

}  // namespace
}  // namespace lookback::test
