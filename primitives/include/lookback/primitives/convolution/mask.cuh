#pragma once
// Convolution masks passed to kernels by value: kernel parameters live in the constant bank, so every
// thread reading the same tap at once is a broadcast, as with a __constant__ array, but each launch
// carries its own mask. Two streams filtering with different masks at once cannot clobber each other,
// and a captured graph keeps its mask. Masks wider than the largest tier read global memory instead,
// copied there from a pageable snapshot: that copy may wait for the stream and cannot be captured.
#include <cstdint>
#include <cstring>

namespace lookback::convolution {

template <class T, int MaxTaps>
struct mask_taps {
  static constexpr int max_taps = MaxTaps;
  T taps[MaxTaps];

  /// Copies `count` <= MaxTaps taps from host memory.
  static mask_taps from(const T* h_taps, int count) {
    mask_taps m{};
    std::memcpy(m.taps, h_taps, static_cast<std::size_t>(count) * sizeof(T));
    return m;
  }
  __device__ __forceinline__ T operator[](int j) const { return taps[j]; }
};

/// A mask in device memory, for masks past the largest by-value tier.
template <class T>
struct global_taps {
  const T* d_taps;
  __device__ __forceinline__ T operator[](int j) const { return __ldg(d_taps + j); }
};

}  // namespace lookback::convolution
