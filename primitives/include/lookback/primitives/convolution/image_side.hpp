#pragma once
// The image sides the 2D convolution takes, without CUDA, so that a command refuses an image by the
// same number as the kernels' entry points, before it reads or launches anything.
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace lookback {

/// The longest image or mask side convolve2d takes: a tile's indices, halo included, stay within an int.
inline constexpr int max_image_side = std::numeric_limits<int>::max() / 4;

namespace detail {

/// Refuses a side below 0 or past max_image_side, naming `who` and both sides.
inline void check_image_sides(std::int64_t height, std::int64_t width, const std::string& who) {
  if (height < 0 || width < 0 || height > max_image_side || width > max_image_side)
    throw std::invalid_argument(who + ": image sides from 0 to " + std::to_string(max_image_side) + " pixels, not " +
                                std::to_string(height) + " x " + std::to_string(width));
}

}  // namespace detail
}  // namespace lookback
