#pragma once
// What a convolution reads past the ends of its input: zero (ghost elements are 0), clamp (the edge
// element repeats) or mirror (reflected about the edge element, which is not repeated: for a b c d,
// ... c b | a b c d | c b ...; scipy.ndimage's "mirror").
#include <cuda_runtime_api.h>  // __host__ __device__ for host compilers too

#include <cstdint>
#include <optional>
#include <string_view>

namespace lookback {

enum class boundary { zero, clamp, mirror };

inline std::optional<boundary> parse_boundary(std::string_view name) {
  if (name == "zero") return boundary::zero;
  if (name == "clamp") return boundary::clamp;
  if (name == "mirror") return boundary::mirror;
  return std::nullopt;
}

namespace convolution {

/// The input index that stands for index i of an input of n elements (n >= 1), or -1 for a zero ghost.
__host__ __device__ inline std::int64_t source_index(std::int64_t i, std::int64_t n, boundary b) {
  if (i >= 0 && i < n) return i;
  switch (b) {
    case boundary::zero: return -1;
    case boundary::clamp: return i < 0 ? 0 : n - 1;
    case boundary::mirror: {
      if (n == 1) return 0;
      const std::int64_t period = 2 * (n - 1);
      std::int64_t r = i % period;
      if (r < 0) r += period;
      return r < n ? r : period - r;
    }
  }
  return -1;
}

}  // namespace convolution
}  // namespace lookback
