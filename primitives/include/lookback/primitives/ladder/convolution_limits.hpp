#pragma once
// The convolution ladder's textbook rungs' limits, without CUDA, so that a command checks its options
// against the same numbers the kernels are built with (convolution_ladder.cuh).

namespace lookback::ladder {

/// The widest mask the constant-memory rungs take (and the halo the tiled ones stage).
inline constexpr int max_ladder_mask_taps = 255;
/// The 2D tiled rung's output tile side; its block is this plus the mask's side less one.
inline constexpr int conv2d_output_tile = 16;
inline constexpr int max_ladder_mask_side = 15;

}  // namespace lookback::ladder
