#pragma once
// When the FIR filter turns to FFT overlap-save, and the FFT size it uses. The switch point comes from
// bench/fir_bench.cu (the fir_*taps_tune rows): on an H100 (CUDA 13.0), 2^24 float samples, the
// direct kernel takes 0.066 ms at 16 taps, 0.152 at 64, 0.265 at 96, 0.432 at 128, 1.23 at 256 and
// 7.30 at 1024; overlap-save 0.289 to 0.318 ms from 16 to 1024 taps (0.382 at 4096). They cross
// near 100 taps.
#include <cstdint>

namespace lookback::policy {

struct fir {
  /// Filters with at least this many taps run overlap-save.
  static constexpr int fft_from_taps = 104;
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
