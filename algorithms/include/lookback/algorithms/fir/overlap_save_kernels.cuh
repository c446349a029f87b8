#pragma once
// The three element-wise steps of overlap-save around cuFFT's transforms: cut the input into
// overlapping segments, multiply each segment's spectrum by the filter's, and keep the part of each
// filtered segment that circular convolution left exact.
#include <cstdint>

namespace lookback::fir::device {

/// Segment b of a chunk starting at output `first` holds x[first + b * step - (taps - 1) + t] for t < size
/// (zero before the input's start and past its end), at b * (size + 2).
template <class T>
__global__ void cut_segments_kernel(const T* d_in, std::int64_t n, std::int64_t first, int step, int taps, int size,
                                    int segments, T* d_segments) {
  const std::int64_t total = std::int64_t{segments} * size;
  for (std::int64_t k = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; k < total;
       k += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t b = k / size;
    const std::int64_t t = k - b * size;
    const std::int64_t src = first + b * step - (taps - 1) + t;
    d_segments[b * (size + 2) + t] = src >= 0 && src < n ? d_in[src] : T{0};
  }
}

/// Every segment's bins times the filter's (`bins` = size / 2 + 1 per segment), scaled by 1 / size
/// because cuFFT's inverse does not normalise.
template <class Complex, class T>
__global__ void multiply_spectra_kernel(Complex* d_spectra, const Complex* d_filter, int bins, int segments, T scale) {
  const std::int64_t total = std::int64_t{segments} * bins;
  for (std::int64_t k = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; k < total;
       k += std::int64_t{gridDim.x} * blockDim.x) {
    const Complex h = d_filter[k % bins];
    const Complex x = d_spectra[k];
    d_spectra[k] = Complex{(x.x * h.x - x.y * h.y) * scale, (x.x * h.y + x.y * h.x) * scale};
  }
}

/// Outputs first + b * step + i for i < step come from position taps - 1 + i of segment b (the first
/// taps - 1 are wrapped around by the circular convolution).
template <class T>
__global__ void keep_valid_kernel(const T* d_segments, std::int64_t n, std::int64_t first, int step, int taps, int size,
                                  int segments, T* d_out) {
  const std::int64_t total = std::int64_t{segments} * step;
  for (std::int64_t k = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; k < total;
       k += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t dst = first + k;
    if (dst >= n) return;
    const std::int64_t b = k / step;
    const std::int64_t i = k - b * step;
    d_out[dst] = d_segments[b * (size + 2) + taps - 1 + i];
  }
}

}  // namespace lookback::fir::device
