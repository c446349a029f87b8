#pragma once
// The named filter masks of `lookback conv2d --kernel`, in the correlation form of lookback::convolve2d
// (y[r][c] = sum m[i][j] x[r - mh/2 + i][c - mw/2 + j]), row-major.
#include <optional>
#include <string>
#include <vector>

namespace lookback::typed {

struct image_mask {
  int height = 0;
  int width = 0;
  std::vector<double> taps;  // height * width, row-major
};

/// Largest K that box:K and gaussian:K:SIGMA accept: the mask then holds about a million taps.
inline constexpr int max_kernel_side = 1023;

/// box:K (K x K of 1/K^2), gaussian:K:SIGMA (exp(-(i^2 + j^2) / (2 SIGMA^2)) about the centre, normalised
/// to sum 1), sharpen, sobel-x (positive where values grow to the right), sobel-y (growing downwards).
/// K odd, 1 <= K <= max_kernel_side; SIGMA finite and > 0. On a malformed spec, returns why (a message
/// naming the spec) and leaves `mask` alone.
std::optional<std::string> parse_kernel_spec(const std::string& spec, image_mask& mask);

/// "box:K | gaussian:K:SIGMA | sharpen | sobel-x | sobel-y", for help texts and messages.
const char* kernel_spec_list();

}  // namespace lookback::typed
