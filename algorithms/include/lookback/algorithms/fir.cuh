#pragma once
// The causal FIR filter y[n] = sum_k h[k] x[n - k] (zero initial state, output as long as the input;
// scipy.signal.lfilter(h, 1, x)) for audio-length signals and long filters. Short filters run the
// direct tiled convolution (lookback::fir_filter); from policy::fir::fft_from_taps taps, FFT
// overlap-save with cuFFT: the input cut into segments of fft_size overlapping by taps - 1, each
// segment's spectrum times the filter's, and the last fft_size - taps + 1 samples of each kept.
//
// overlap_save_filter holds the plans and the filter's spectrum, so a caller filtering many blocks
// (a file streamed through) pays for them once. fir_filter_auto picks the method for one call.
#include <lookback/algorithms/fir/cufft_plan.cuh>
#include <lookback/algorithms/fir/fir_policy.cuh>
#include <lookback/algorithms/fir/overlap_save_kernels.cuh>
#include <lookback/primitives/convolution.cuh>
#include <lookback/primitives/detail/device_limits.cuh>
#include <lookback/primitives/device_buffer.cuh>
#include <lookback/primitives/error.cuh>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace lookback {

template <class T>
class overlap_save_filter {
  using complex = typename fir::fft_types<T>::complex;

 public:
  /// A filter of `num_taps` taps (host memory) for inputs of up to `max_n` samples per call, its
  /// segments transformed in batches of at most `batch_reals` reals. Its plans and buffers belong to
  /// `stream`, and every call runs on it.
  overlap_save_filter(const T* h_taps, int num_taps, std::int64_t max_n, cudaStream_t stream = nullptr,
                      std::int64_t batch_reals = policy::fir::batch_reals)
      : stream_(stream), taps_(num_taps), size_(policy::fir::fft_size(num_taps)), step_(size_ - num_taps + 1) {
    convolution::detail::check_type<T>();
    convolution::detail::check_mask(num_taps, "lookback::overlap_save_filter");
    lookback::detail::check_array(h_taps, num_taps, "lookback::overlap_save_filter", "h_taps");
    batch_ = batch_for(size_, step_, max_n, batch_reals);
    segments_ = device_buffer<T>(static_cast<std::size_t>(batch_) * (size_ + 2), stream);
    fft_ = std::make_unique<fir::batched_real_fft<T>>(size_, batch_, stream);
    // The filter's spectrum: its taps zero-padded to one segment, through a one-segment plan.
    std::vector<T> padded(static_cast<std::size_t>(size_) + 2, T{0});
    std::copy(h_taps, h_taps + num_taps, padded.begin());
    filter_ = device_buffer<T>(padded.size(), stream);
    copy_to_device(filter_.data(), padded.data(), padded.size(), stream);
    fir::batched_real_fft<T>(size_, 1, stream).forward(filter_.data());
  }

  /// The device memory a filter of `num_taps` for `max_n` samples takes while it is built (its
  /// segments, its spectrum, and the work areas of its plans), so that a caller can check it up front.
  [[nodiscard]] static std::size_t device_bytes(int num_taps, std::int64_t max_n,
                                                std::int64_t batch_reals = policy::fir::batch_reals) {
    const int size = policy::fir::fft_size(num_taps);
    const int batch = batch_for(size, size - num_taps + 1, max_n, batch_reals);
    const std::size_t segment_bytes = (static_cast<std::size_t>(size) + 2) * sizeof(T);
    return (static_cast<std::size_t>(batch) + 1) * segment_bytes + fir::batched_real_fft<T>::work_bytes(size, batch) +
           fir::batched_real_fft<T>::work_bytes(size, 1);
  }

  [[nodiscard]] int fft_size() const noexcept { return size_; }
  [[nodiscard]] int batch() const noexcept { return batch_; }

  /// y = h * x over n <= max_n samples; d_out must not overlap d_in. `stream` must be the one the
  /// filter was built on: the transforms run there, and so must the kernels between them.
  void operator()(const T* d_in, T* d_out, std::int64_t n, cudaStream_t stream = nullptr) {
    if (stream != stream_)
      throw std::invalid_argument(
          "lookback::overlap_save_filter: called on a stream other than the one it was built on");
    if (n < 0) throw std::invalid_argument("lookback::overlap_save_filter: negative sample count");
    lookback::detail::check_array(d_in, n, "lookback::overlap_save_filter", "d_in");
    lookback::detail::check_array(d_out, n, "lookback::overlap_save_filter", "d_out");
    const int threads = 256;
    const auto cut = fir::device::cut_segments_kernel<T>;
    const auto multiply = fir::device::multiply_spectra_kernel<complex, T>;
    const auto keep = fir::device::keep_valid_kernel<T>;
    const int grid = lookback::detail::resident_blocks(cut, threads);
    const std::int64_t per_batch = std::int64_t{batch_} * step_;
    for (std::int64_t first = 0; first < n; first += per_batch) {
      const int segments = static_cast<int>(std::min<std::int64_t>(batch_, (n - first + step_ - 1) / step_));
      // Only this batch's segments: a short last batch leaves the rest as they were, transformed but
      // never kept.
      cut<<<grid, threads, 0, stream>>>(d_in, n, first, step_, taps_, size_, segments, segments_.data());
      LOOKBACK_CUDA_TRY(cudaGetLastError());
      fft_->forward(segments_.data());
      multiply<<<grid, threads, 0, stream>>>(reinterpret_cast<complex*>(segments_.data()),
                                             reinterpret_cast<const complex*>(filter_.data()), size_ / 2 + 1, segments,
                                             T{1} / static_cast<T>(size_));
      LOOKBACK_CUDA_TRY(cudaGetLastError());
      fft_->inverse(segments_.data());
      keep<<<grid, threads, 0, stream>>>(segments_.data(), n, first, step_, taps_, size_, segments, d_out);
      LOOKBACK_CUDA_TRY(cudaGetLastError());
    }
  }

 private:
  static int batch_for(int size, int step, std::int64_t max_n, std::int64_t batch_reals) {
    const std::int64_t needed = (std::max<std::int64_t>(max_n, 1) + step - 1) / step;
    return static_cast<int>(std::max<std::int64_t>(1, std::min(needed, batch_reals / size)));
  }

  cudaStream_t stream_;
  int taps_;
  int size_;
  int step_;
  int batch_ = 1;
  device_buffer<T> segments_;
  device_buffer<T> filter_;
  std::unique_ptr<fir::batched_real_fft<T>> fft_;
};

/// The causal FIR filter by whichever method policy::fir picks for this many taps.
template <class T>
void fir_filter_auto(const T* d_in, T* d_out, std::int64_t n, const T* h_taps, int num_taps, cudaStream_t stream = nullptr) {
  if (num_taps < policy::fir::fft_from_taps || n == 0) return fir_filter(d_in, d_out, n, h_taps, num_taps, stream);
  overlap_save_filter<T>(h_taps, num_taps, n, stream)(d_in, d_out, n, stream);
}

}  // namespace lookback
