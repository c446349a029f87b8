#pragma once
// CPU reference summed-area table (summed_area_table.cuh): a running sum along each row added to the
// row above, in the accumulator type, so integer tables wrap exactly as the GPU's do. Acc = long
// double gives the checks' exact reference for floating-point inputs.
#include <cstdint>
#include <vector>

namespace lookback::cpu {

/// table(r, c) = sum of in(i, j) over i <= r, j <= c, for a dense row-major height x width image.
template <class Acc, class In>
std::vector<Acc> summed_area_table(const In* in, int height, int width) {
  const auto w = static_cast<std::size_t>(width);
  std::vector<Acc> table(static_cast<std::size_t>(height) * w);
  for (std::size_t r = 0; r < static_cast<std::size_t>(height); ++r) {
    Acc row{0};
    for (std::size_t c = 0; c < w; ++c) {
      row += static_cast<Acc>(in[r * w + c]);
      table[r * w + c] = r == 0 ? row : static_cast<Acc>(table[(r - 1) * w + c] + row);
    }
  }
  return table;
}

}  // namespace lookback::cpu
