#pragma once
// A batched in-place real FFT plan for the overlap-save filter, float or double, with its work area
// taken from the stream-ordered allocator (cuFFT would otherwise cudaMalloc its own). cuFFT reports
// through cufftResult, which LOOKBACK_CUFFT_TRY turns into lookback::cufft_error with file and line
// (lookback::cuda_error for an allocation that failed).
#include <lookback/primitives/device_buffer.cuh>
#include <lookback/primitives/error.cuh>

#include <cufft.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace lookback {

class cufft_error : public std::runtime_error {
 public:
  cufft_error(cufftResult code, const char* expression, const char* file, int line)
      : std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + expression + ": cufftResult " +
                           std::to_string(static_cast<int>(code))),
        code_(code) {}
  [[nodiscard]] cufftResult code() const noexcept { return code_; }

 private:
  cufftResult code_;
};

namespace detail {
inline void cufft_try(cufftResult code, const char* expression, const char* file, int line) {
  // Out of memory is the CUDA error a caller already handles as such (a command's exit 71).
  if (code == CUFFT_ALLOC_FAILED) throw cuda_error(cudaErrorMemoryAllocation, expression, file, line);
  if (code != CUFFT_SUCCESS) throw cufft_error(code, expression, file, line);
}
}  // namespace detail
}  // namespace lookback

#define LOOKBACK_CUFFT_TRY(call) ::lookback::detail::cufft_try((call), #call, __FILE__, __LINE__)

namespace lookback::fir {

template <class T>
struct fft_types;
template <>
struct fft_types<float> {
  using complex = cufftComplex;
  static constexpr cufftType forward = CUFFT_R2C, inverse = CUFFT_C2R;
  static cufftResult r2c(cufftHandle p, float* in, complex* out) { return cufftExecR2C(p, in, out); }
  static cufftResult c2r(cufftHandle p, complex* in, float* out) { return cufftExecC2R(p, in, out); }
};
template <>
struct fft_types<double> {
  using complex = cufftDoubleComplex;
  static constexpr cufftType forward = CUFFT_D2Z, inverse = CUFFT_Z2D;
  static cufftResult r2c(cufftHandle p, double* in, complex* out) { return cufftExecD2Z(p, in, out); }
  static cufftResult c2r(cufftHandle p, complex* in, double* out) { return cufftExecZ2D(p, in, out); }
};

/// `batch` transforms of `size` reals each, in place: segment b holds size reals at b * (size + 2),
/// and its size / 2 + 1 complex bins over the same bytes after the forward transform.
template <class T>
class batched_real_fft {
 public:
  batched_real_fft(int size, int batch, cudaStream_t stream) {
    std::size_t forward_bytes = 0, inverse_bytes = 0;
    make(forward_, size, batch, fft_types<T>::forward, forward_bytes);
    make(inverse_, size, batch, fft_types<T>::inverse, inverse_bytes);
    // The two plans run one after the other on one stream: one work area serves both.
    work_ = device_buffer<std::byte>(std::max(forward_bytes, inverse_bytes), stream);
    for (const cufftHandle p : {cufftHandle{forward_}, cufftHandle{inverse_}}) {
      LOOKBACK_CUFFT_TRY(cufftSetWorkArea(p, work_.data()));
      LOOKBACK_CUFFT_TRY(cufftSetStream(p, stream));
    }
  }
  batched_real_fft(const batched_real_fft&) = delete;
  batched_real_fft& operator=(const batched_real_fft&) = delete;

  /// The work area a plan of `batch` transforms of `size` takes, as cuFFT estimates it before planning.
  static std::size_t work_bytes(int size, int batch) {
    std::size_t most = 0;
    for (const cufftType type : {fft_types<T>::forward, fft_types<T>::inverse}) {
      plan_shape shape(size, type);
      std::size_t bytes = 0;
      LOOKBACK_CUFFT_TRY(cufftEstimateMany(1, shape.n, shape.in_embed, 1, shape.in_dist, shape.out_embed, 1,
                                           shape.out_dist, type, batch, &bytes));
      most = std::max(most, bytes);
    }
    return most;
  }

  void forward(T* d_segments) const {
    LOOKBACK_CUFFT_TRY(fft_types<T>::r2c(forward_, d_segments, reinterpret_cast<typename fft_types<T>::complex*>(d_segments)));
  }
  void inverse(T* d_segments) const {
    LOOKBACK_CUFFT_TRY(fft_types<T>::c2r(inverse_, reinterpret_cast<typename fft_types<T>::complex*>(d_segments), d_segments));
  }

 private:
  /// Segment b's reals at b * (size + 2), its bins over the same bytes.
  struct plan_shape {
    plan_shape(int size, cufftType type) {
      const bool to_complex = type == fft_types<T>::forward;
      n[0] = size;
      in_embed[0] = in_dist = to_complex ? size + 2 : size / 2 + 1;
      out_embed[0] = out_dist = to_complex ? size / 2 + 1 : size + 2;
    }
    int n[1];
    int in_embed[1];
    int out_embed[1];
    int in_dist;
    int out_dist;
  };

  static void make(cufftHandle plan, int size, int batch, cufftType type, std::size_t& work_bytes) {
    LOOKBACK_CUFFT_TRY(cufftSetAutoAllocation(plan, 0));
    plan_shape shape(size, type);
    LOOKBACK_CUFFT_TRY(cufftMakePlanMany(plan, 1, shape.n, shape.in_embed, 1, shape.in_dist, shape.out_embed, 1,
                                         shape.out_dist, type, batch, &work_bytes));
  }

  /// A plan handle, destroyed with its owner, also when the owner's constructor throws after it.
  class handle {
   public:
    handle() { LOOKBACK_CUFFT_TRY(cufftCreate(&plan_)); }
    handle(const handle&) = delete;
    handle& operator=(const handle&) = delete;
    ~handle() { (void)cufftDestroy(plan_); }  // a destructor has no one to report to
    operator cufftHandle() const noexcept { return plan_; }

   private:
    cufftHandle plan_ = 0;
  };

  device_buffer<std::byte> work_;  // declared first, so that the plans go before their work area
  handle forward_;
  handle inverse_;
};

}  // namespace lookback::fir
