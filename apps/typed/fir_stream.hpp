#pragma once
// Block streaming for `lookback fir`, shared by its CPU and GPU backends.
#include <cstdint>
#include <functional>
#include <vector>

namespace lookback::typed {

/// Filters interleaved audio a block of frames at a time, carrying each channel's state across
/// blocks: the channel's last num_taps - 1 input samples (zeros before the first block) go in front of
/// its next block, so every output sample sees the same inputs as in one pass over the whole file.
class fir_stream {
 public:
  /// Filters one channel's `x` (the carried samples, then the block) into `y`, as long as `x`.
  using channel_filter = std::function<void(const std::vector<double>& x, std::vector<double>& y)>;

  fir_stream(int channels, int num_taps);

  /// `frames` interleaved frames from `in` to `out` (which may not overlap).
  void process(const double* in, double* out, std::int64_t frames, const channel_filter& filter);

 private:
  int channels_;
  std::size_t carried_;
  std::vector<std::vector<double>> history_;
  std::vector<double> x_, y_;
};

}  // namespace lookback::typed
