#include "typed/fir_stream.hpp"

#include <algorithm>

namespace lookback::typed {

fir_stream::fir_stream(int channels, int num_taps)
    : channels_(channels),
      carried_(static_cast<std::size_t>(num_taps - 1)),
      history_(static_cast<std::size_t>(channels), std::vector<double>(carried_, 0.0)) {}

void fir_stream::process(const double* in, double* out, std::int64_t frames, const channel_filter& filter) {
  const auto n = static_cast<std::size_t>(frames);
  const auto stride = static_cast<std::size_t>(channels_);
  for (std::size_t c = 0; c < stride; ++c) {
    x_.assign(history_[c].begin(), history_[c].end());
    for (std::size_t i = 0; i < n; ++i) x_.push_back(in[i * stride + c]);
    y_.resize(x_.size());
    filter(x_, y_);
    for (std::size_t i = 0; i < n; ++i) out[i * stride + c] = y_[carried_ + i];
    std::copy(x_.end() - static_cast<std::ptrdiff_t>(carried_), x_.end(), history_[c].begin());
  }
}

}  // namespace lookback::typed
