#pragma once
// What the reduce and scan ladders share: the block size, bounds-checked loads, and grid-size checks.
#include <lookback/primitives/detail/temp_layout.cuh>
#include <lookback/primitives/policy/ladder_policy.cuh>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace lookback::ladder::detail {

inline constexpr int block_threads = policy::ladder::threads;
static_assert(block_threads >= 64 && block_threads <= 1024 && (block_threads & (block_threads - 1)) == 0,
              "the ladder kernels assume a power-of-two block of 64 to 1024 threads");

/// The ladders add with `+` and start from T(0): the six numeric dtypes of the project.
template <class T>
inline constexpr bool ladder_type = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;

/// in[i], or the identity past the end: tails are padded with zeros so that every kernel can keep
/// the power-of-two tree shape of its block whatever n is.
template <class T>
__device__ __forceinline__ T load_or_zero(const T* in, std::int64_t i, std::int64_t n) {
  return i < n ? in[i] : T(0);
}

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

/// A grid of `blocks`, refused when it exceeds what one launch can address (2^31 - 1 blocks).
inline unsigned grid_of(std::int64_t blocks, const char* who) {
  if (blocks > std::numeric_limits<int>::max())
    throw std::length_error(std::string(who) + ": " + std::to_string(blocks) + " blocks exceed one grid");
  return static_cast<unsigned>(blocks);
}

using lookback::detail::check_item_count;
using lookback::detail::temp_layout;

}  // namespace lookback::ladder::detail
