#pragma once
// What the reduce and scan ladders share: the block size, bounds-checked loads, and grid-size checks.
#include <lookback/primitives/detail/temp_layout.cuh>
#include <lookback/primitives/operators.cuh>
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

/// The ladders add with `+`: the six numeric dtypes of the project.
template <class T>
inline constexpr bool ladder_type = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;

/// What the ladders start and pad from: 0, and -0.0 for floats (neutral_of), which leaves every item as
/// it is, so that an inclusive sum whose first items are -0.0 begins with -0.0, as CUB's does.
template <class T>
__host__ __device__ constexpr T neutral() {
  return ::lookback::neutral_of<T>(::lookback::sum{});
}

/// in[i], or neutral past the end: tails are padded so that every kernel can keep the power-of-two
/// tree shape of its block whatever n is.
template <class T>
__device__ __forceinline__ T load_or_zero(const T* in, std::int64_t i, std::int64_t n) {
  return i < n ? in[i] : neutral<T>();
}

/// Stores a block's partial sum. The last pass, one block, writes the result and adds to it the
/// initial value +0.0 that CUB's Reduce adds: -0.0s then total +0.0 whether or not padding joined them.
template <class T>
__device__ __forceinline__ void store_partial(T* out, T partial) {
  out[blockIdx.x] = gridDim.x == 1 ? T(0) + partial : partial;
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
