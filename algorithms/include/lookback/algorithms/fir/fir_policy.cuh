#pragma once
// When the FIR filter turns to FFT overlap-save, and the FFT size it uses. The switch point is set
// from bench/fir_bench.cu on the device (fir_direct_* against fir_fft_*); see the comment at
// fft_from_taps for the measurement.
#include <cstdint>

namespace lookback::policy {

struct fir {
  /// Filters with at least this many taps run overlap-save. Not yet measured: a first guess from the
  /// direct kernel's cost (taps FMAs per output) against the FFT path's (a few passes over memory).
  static constexpr int fft_from_taps = 128;
  /// The FFT size: 8x the taps rounded up to a power of two, so at least 7/8 of each transform is
  /// output, within [min_fft, max_fft] and never under twice the taps.
  static constexpr int min_fft = 4096;
  static constexpr int max_fft = 1 << 20;
  /// Segments per batch are bounded by this many reals (the batch buffer's size).
  static constexpr std::int64_t batch_reals = std::int64_t{1} << 25;

  static int fft_size(int taps) {
    int size = min_fft;
    while (size < max_fft && size < 8 * static_cast<std::int64_t>(taps)) size *= 2;
    while (size < 2 * static_cast<std::int64_t>(taps)) size *= 2;
    return size;
  }
};

}  // namespace lookback::policy
