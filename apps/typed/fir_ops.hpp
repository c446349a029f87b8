#pragma once
// The GPU side of `lookback fir`, compiled once, in fir_lookback.cu.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace lookback::typed {

/// y[n] = sum_{k < num_taps} h[k] * x[n - k] on the GPU in float, x zero before its start
/// (scipy.signal.lfilter(h, 1, x)), by lookback::fir_filter_auto's choice: the direct kernel for
/// short filters, FFT overlap-save from policy::fir::fft_from_taps taps. The overlap-save plans are
/// made on the first call and kept while the blocks fit them, so a streamed file pays for them once.
class fir_gpu_filter {
 public:
  explicit fir_gpu_filter(std::vector<float> taps);
  ~fir_gpu_filter();
  fir_gpu_filter(const fir_gpu_filter&) = delete;
  fir_gpu_filter& operator=(const fir_gpu_filter&) = delete;

  /// Device input and output of n samples, stream-ordered.
  void operator()(const float* d_in, float* d_out, std::int64_t n, cudaStream_t stream);
  /// What a call over n samples takes on the device beside its input and output.
  [[nodiscard]] std::size_t device_bytes(std::int64_t n) const;

 private:
  /// Whether a call over n samples takes overlap-save rather than the direct kernel (policy::fir).
  [[nodiscard]] bool overlap_saves(std::int64_t n) const;
  struct overlap_save;
  std::vector<float> taps_;
  std::unique_ptr<overlap_save> fft_;
};

}  // namespace lookback::typed
