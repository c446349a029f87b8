#pragma once
// The textbook's bandwidth reduction of a tiled convolution: an untiled kernel loads MASK inputs per
// output; a tile of TILE outputs loads TILE + MASK - 1 inputs once, so global loads fall by
// TILE * MASK / (TILE + MASK - 1) in 1D and TILE^2 * MASK^2 / (TILE + MASK - 1)^2 in 2D.
namespace lookback::ladder {

inline double tiling_reduction_1d(int tile, int mask) {
  return static_cast<double>(tile) * mask / (tile + mask - 1);
}

inline double tiling_reduction_2d(int tile, int mask) {
  const double t = tile;
  const double m = mask;
  return t * t * m * m / ((t + m - 1) * (t + m - 1));
}

}  // namespace lookback::ladder
