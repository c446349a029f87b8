#pragma once
// Warp shuffles for any trivially copyable type: the value moves as 32-bit words, so 8-byte and
// user-defined types shuffle as cheaply as the hardware allows.
#include <cstring>
#include <type_traits>

namespace lookback::warp {

inline constexpr unsigned full_mask = 0xffffffffu;
inline constexpr int warp_size = 32;

__device__ __forceinline__ int lane_id() { return static_cast<int>(threadIdx.x) & (warp_size - 1); }

/// The mask of this lane and the lanes below it.
__device__ __forceinline__ unsigned lanes_up_to_me() {
  unsigned mask;
  asm("mov.u32 %0, %%lanemask_le;" : "=r"(mask));
  return mask;
}

namespace detail {
template <class T, class Shuffle>
__device__ __forceinline__ T shuffle_words(const T& value, Shuffle shuffle) {
  static_assert(std::is_trivially_copyable_v<T>, "shuffled types must be trivially copyable");
  constexpr int words = (sizeof(T) + 3) / 4;
  unsigned in[words] = {};
  unsigned out[words];
  memcpy(in, &value, sizeof(T));
#pragma unroll
  for (int w = 0; w < words; ++w) out[w] = shuffle(in[w]);
  T result;
  memcpy(&result, out, sizeof(T));
  return result;
}
}  // namespace detail

template <class T>
__device__ __forceinline__ T shfl_up(const T& v, int delta) {
  return detail::shuffle_words(v, [delta](unsigned w) { return __shfl_up_sync(full_mask, w, delta); });
}
template <class T>
__device__ __forceinline__ T shfl_down(const T& v, int delta) {
  return detail::shuffle_words(v, [delta](unsigned w) { return __shfl_down_sync(full_mask, w, delta); });
}
template <class T>
__device__ __forceinline__ T shfl_xor(const T& v, int mask) {
  return detail::shuffle_words(v, [mask](unsigned w) { return __shfl_xor_sync(full_mask, w, mask); });
}
template <class T>
__device__ __forceinline__ T shfl(const T& v, int src_lane) {
  return detail::shuffle_words(v, [src_lane](unsigned w) { return __shfl_sync(full_mask, w, src_lane); });
}

}  // namespace lookback::warp
