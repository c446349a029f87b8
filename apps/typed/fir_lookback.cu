// lookback::fir_filter and lookback::overlap_save_filter in float, compiled once for the command.
#include "typed/fir_ops.hpp"

#include <lookback/algorithms/fir.cuh>

namespace lookback::typed {

struct fir_gpu_filter::overlap_save {
  std::int64_t max_n;
  lookback::overlap_save_filter<float> filter;
};

fir_gpu_filter::fir_gpu_filter(std::vector<float> taps) : taps_(std::move(taps)) {}
fir_gpu_filter::~fir_gpu_filter() = default;

bool fir_gpu_filter::overlap_saves(std::int64_t n) const {
  return static_cast<int>(taps_.size()) >= policy::fir::fft_from_taps && n != 0;
}

std::size_t fir_gpu_filter::device_bytes(std::int64_t n) const {
  return overlap_saves(n) ? lookback::overlap_save_filter<float>::device_bytes(static_cast<int>(taps_.size()), n) : 0;
}

void fir_gpu_filter::operator()(const float* d_in, float* d_out, std::int64_t n, cudaStream_t stream) {
  const int num_taps = static_cast<int>(taps_.size());
  if (!overlap_saves(n)) return lookback::fir_filter(d_in, d_out, n, taps_.data(), num_taps, stream);
  if (!fft_ || fft_->max_n < n)
    fft_.reset(new overlap_save{n, lookback::overlap_save_filter<float>(taps_.data(), num_taps, n, stream)});
  fft_->filter(d_in, d_out, n, stream);
}

}  // namespace lookback::typed
