#pragma once
// CPU references for the convolutions (convolution.cuh), in long double so that the GPU results are
// checked against the exact sums up to the GPU's own rounding; and the causal FIR filter in its
// element type, the `lookback fir` command's double-precision CPU backend.
#include <lookback/primitives/convolution/boundary.cuh>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace lookback::cpu {

/// y[i] = sum_{j < width} x[i - left + j] * mask[j].
template <class T>
std::vector<long double> correlate1d(const std::vector<T>& x, const std::vector<T>& mask, int left, boundary b) {
  const auto n = static_cast<std::int64_t>(x.size());
  std::vector<long double> y(x.size());
  for (std::int64_t i = 0; i < n; ++i) {
    long double acc = 0;
    for (std::size_t j = 0; j < mask.size(); ++j) {
      const std::int64_t src = convolution::source_index(i - left + static_cast<std::int64_t>(j), n, b);
      if (src >= 0) acc += static_cast<long double>(x[static_cast<std::size_t>(src)]) * mask[j];
    }
    y[static_cast<std::size_t>(i)] = acc;
  }
  return y;
}

/// y[i] = sum_{k < num_taps} h[k] * x[i - k], x zero before its start (scipy.signal.lfilter(h, 1, x)),
/// summed in T from k = 0 up. A fixed order makes the output depend only on the inputs each sample
/// sees, so a signal filtered block by block, each block behind its predecessor's last num_taps - 1
/// samples, repeats the one-pass output bit for bit.
template <class T>
void fir_filter(const T* x, T* y, std::int64_t n, const T* h, int num_taps) {
  for (std::int64_t i = 0; i < n; ++i) {
    const auto reach = static_cast<int>(std::min<std::int64_t>(num_taps, i + 1));
    T acc = 0;
    for (int k = 0; k < reach; ++k) acc += h[k] * x[i - k];
    y[i] = acc;
  }
}

/// The 2D form on a dense height x width image and mask.
template <class T>
std::vector<long double> correlate2d(const std::vector<T>& x, int height, int width, const std::vector<T>& mask,
                                     int mask_height, int mask_width, boundary b) {
  std::vector<long double> y(static_cast<std::size_t>(height) * static_cast<std::size_t>(width));
  for (int r = 0; r < height; ++r)
    for (int c = 0; c < width; ++c) {
      long double acc = 0;
      for (int a = 0; a < mask_height; ++a) {
        const std::int64_t rr = convolution::source_index(r - mask_height / 2 + a, height, b);
        for (int k = 0; k < mask_width; ++k) {
          const std::int64_t cc = convolution::source_index(c - mask_width / 2 + k, width, b);
          if (rr >= 0 && cc >= 0)
            acc += static_cast<long double>(x[static_cast<std::size_t>(rr * width + cc)]) *
                   mask[static_cast<std::size_t>(a * mask_width + k)];
        }
      }
      y[static_cast<std::size_t>(r) * static_cast<std::size_t>(width) + static_cast<std::size_t>(c)] = acc;
    }
  return y;
}

}  // namespace lookback::cpu
