#pragma once
// A scan's initial value held in device memory, for a sequence scanned in chunks (a stream larger than
// the GPU, or one rank's slice of a distributed array): the kernel reads what every earlier chunk
// combines to from *d_prefix, and leaves the prefix combined with every item of this chunk in
// *d_total, ready as the next chunk's d_prefix. The host never reads either, so chunks follow each
// other on a stream without a round trip.
#include <stdexcept>
#include <string>
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

/// Refuses a carry whose d_total is its d_prefix: the last tile writes the total while other tiles may
/// still read the prefix, so one slot for both gives whatever the timing gives.
template <class T>
void refuse_shared_carry_slot(const carried<T>& carry, const char* who) {
  if (carry.d_prefix != nullptr && carry.d_total == carry.d_prefix)
    throw std::invalid_argument(std::string(who) +
                                ": a carried prefix's d_total must not be its d_prefix (tiles may still read the prefix "
                                "when the total is written: ping-pong two slots)");
}

}  // namespace detail
}  // namespace lookback
