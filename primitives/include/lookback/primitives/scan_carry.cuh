#pragma once
// A scan's initial value held in device memory, for a sequence scanned in chunks (a stream larger than
// the GPU, or one rank's slice of a distributed array): the kernel reads what every earlier chunk
// combines to from *d_prefix, and leaves the prefix combined with every item of this chunk in
// *d_total, ready as the next chunk's d_prefix. The host never reads either, so chunks follow each
// other on a stream without a round trip.
#include <type_traits>

namespace lookback {

template <class T>
struct carried {
  const T* d_prefix;  // read by the blocks that start a chunk's tiles (every block, for small arrays)
  T* d_total;         // written once, by the last tile, while other blocks may still read d_prefix: must
                      // not alias it (ping-pong two slots; the scan refuses the same slot)
};

namespace detail {

/// The value a scan starts from: a plain initial value, or the carried prefix in device memory.
template <class T>
__device__ __forceinline__ T initial_value(const T& init) {
  return init;
}
template <class T>
__device__ __forceinline__ T initial_value(const carried<T>& carry) {
  return *carry.d_prefix;
}

/// Where the last tile leaves the running total; plain scans have nowhere.
template <class T>
__host__ __device__ __forceinline__ T* total_slot(const T&) {
  return nullptr;
}
template <class T>
__host__ __device__ __forceinline__ T* total_slot(const carried<T>& carry) {
  return carry.d_total;
}

template <class T>
struct init_value {
  using type = T;
};
template <class T>
struct init_value<carried<T>> {
  using type = T;
};
template <class Init>
inline constexpr bool is_carried = !std::is_same_v<typename init_value<Init>::type, Init>;
template <class Init>
using init_value_t = typename init_value<Init>::type;

}  // namespace detail
}  // namespace lookback
