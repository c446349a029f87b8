// The CPU FIR filter (the command's CPU backend and --verify's reference) by hand and against a
// naive loop, and the block streaming both backends share: any split into blocks gives the one-pass
// output bit for bit.
#include <gtest/gtest.h>

#include <lookback/primitives/cpu/convolution.hpp>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "typed/fir_stream.hpp"
#include "support/run_seed.hpp"

namespace lookback {
namespace {

std::vector<double> filtered(const std::vector<double>& h, const std::vector<double>& x) {
  std::vector<double> y(x.size());
  cpu::fir_filter(x.data(), y.data(), static_cast<std::int64_t>(x.size()), h.data(), static_cast<int>(h.size()));
  return y;
}

std::vector<double> random_signal(std::size_t n, unsigned seed) {
  auto rng = lookback::test::make_rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<double> x(n);
  for (double& v : x) v = value(rng);
  return x;
}

TEST(FirFilterReference, LfilterSemanticsByHand) {
  // scipy.signal.lfilter([1, 2, 3], 1, x): causal, zero initial state, as long as the input.
  EXPECT_EQ(filtered({1, 2, 3}, {1, 0, 0, 0, 2}), (std::vector<double>{1, 2, 3, 0, 2}));
  EXPECT_EQ(filtered({1, 2, 3}, {1, 1, 1, 1}), (std::vector<double>{1, 3, 6, 6}));
  EXPECT_EQ(filtered({0.5, 0.5}, {2, 4, 6}), (std::vector<double>{1, 3, 5}));
  // More taps than samples: only the taps that reach the input count.
  EXPECT_EQ(filtered({1, 10, 100, 1000}, {1, 2}), (std::vector<double>{1, 12}));
  EXPECT_EQ(filtered({3}, {1, -2}), (std::vector<double>{3, -6}));
  EXPECT_TRUE(filtered({1, 2}, {}).empty());
}

TEST(FirFilterReference, EqualsANaiveLoop) {
  const std::vector<double> x = random_signal(777, 1);
  const std::vector<double> h = random_signal(45, 2);
  const std::vector<double> y = filtered(h, x);
  for (std::size_t n = 0; n < x.size(); ++n) {
    double acc = 0;
    for (std::size_t k = 0; k < h.size(); ++k)
      if (k <= n) acc += h[k] * x[n - k];
    ASSERT_EQ(y[n], acc) << "sample " << n;
  }
}

/// `channels`-channel interleaved `in`, streamed through the CPU filter in blocks of `block` frames.
std::vector<double> streamed(const std::vector<double>& h, const std::vector<double>& in, int channels, std::int64_t block) {
  typed::fir_stream stream(channels, static_cast<int>(h.size()));
  const auto filter = [&](const std::vector<double>& x, std::vector<double>& y) {
    cpu::fir_filter(x.data(), y.data(), static_cast<std::int64_t>(x.size()), h.data(), static_cast<int>(h.size()));
  };
  std::vector<double> out(in.size());
  const std::int64_t frames = static_cast<std::int64_t>(in.size()) / channels;
  for (std::int64_t at = 0; at < frames; at += block) {
    const std::int64_t n = std::min(block, frames - at);
    stream.process(in.data() + at * channels, out.data() + at * channels, n, filter);
  }
  return out;
}

TEST(FirStream, AnyBlockSplitRepeatsTheOnePassOutputBitForBit) {
  const int channels = 3;
  const std::int64_t frames = 1000;
  const std::vector<double> in = random_signal(static_cast<std::size_t>(frames * channels), 3);
  for (const int taps : {1, 2, 31}) {
    const std::vector<double> h = random_signal(static_cast<std::size_t>(taps), 4);
    const std::vector<double> one_block = streamed(h, in, channels, frames);
    // Each channel, deinterleaved and filtered in one call.
    for (int c = 0; c < channels; ++c) {
      std::vector<double> x;
      for (std::int64_t i = 0; i < frames; ++i) x.push_back(in[static_cast<std::size_t>(i * channels + c)]);
      const std::vector<double> y = filtered(h, x);
      for (std::int64_t i = 0; i < frames; ++i)
        ASSERT_EQ(one_block[static_cast<std::size_t>(i * channels + c)], y[static_cast<std::size_t>(i)])
            << taps << " taps, channel " << c << ", frame " << i;
    }
    // Blocks shorter than the carried state, equal to it, and uneven ones.
    for (const std::int64_t block : {1, 7, 30, 31, 64, 999}) {
      const std::vector<double> split = streamed(h, in, channels, block);
      ASSERT_EQ(std::memcmp(split.data(), one_block.data(), split.size() * sizeof(double)), 0)
          << taps << " taps in blocks of " << block;
    }
  }
}

}  // namespace
}  // namespace lookback
