#pragma once
// When the FIR filter turns to FFT overlap-save, and the FFT size it uses. The switch point comes from
// bench/fir_bench.cu (the fir_*taps_tune rows): on an H100 (CUDA 13.0), 2^24 float samples, with the
// 1D kernel of commit f4918f9 (its tile's inputs loaded unrolled, 16 outputs a thread), the direct
// kernel takes 0.069 ms at 16 taps, 0.179 at 64, 0.257 at 96, 0.332 at 128, 0.638 at 256 and 2.61
// at 1024; overlap-save 0.287 to 0.317 ms from 16 to 1024 taps (0.380 at 4096). They cross near 110
// taps (near 100 with the kernel before).
#include <cstdint>

namespace lookback::policy {

struct fir {
  /// Filters with at least this many taps run overlap-save.
  static constexpr int fft_from_taps = 112;
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
