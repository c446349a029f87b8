#pragma once
// One pixel of the box filter from a summed-area table, the same code on the host and the device, so
// that the CPU backend and the GPU agree to the last bit on how the mean is formed.
#include <lookback/algorithms/summed_area/box_sum.cuh>

#include <cstdint>

namespace lookback::typed {

/// The window's sum (clipped to the image: zeros past the edges) divided by the full window's
/// (2 radius + 1)^2 pixels, in double.
template <class Acc>
__host__ __device__ double box_mean_at(const Acc* table, int height, int width, int r, int c, int radius) {
  const auto clip = [](std::int64_t v, int n) { return static_cast<int>(v < 0 ? 0 : v >= n ? n - 1 : v); };
  const std::int64_t side = 2 * static_cast<std::int64_t>(radius) + 1;
  const Acc sum = box_sum(table, width, clip(std::int64_t{r} - radius, height), clip(std::int64_t{c} - radius, width),
                          clip(std::int64_t{r} + radius, height), clip(std::int64_t{c} + radius, width));
  return static_cast<double>(sum) / (static_cast<double>(side) * static_cast<double>(side));
}

}  // namespace lookback::typed
