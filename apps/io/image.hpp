#pragma once
// Images as arrays: (height, width) grey or (height, width, 3) RGB, of uint8 or uint16 samples, rows
// top to bottom. PNG (png.hpp) and PGM (pgm.hpp) files read into and write from them.
#include "io/array.hpp"

#include <cstdint>

namespace lookback::io {

inline std::int64_t image_height(const host_array& a) { return a.shape.at(0); }
inline std::int64_t image_width(const host_array& a) { return a.shape.at(1); }
inline int image_channels(const host_array& a) { return a.shape.size() == 3 ? static_cast<int>(a.shape[2]) : 1; }

}  // namespace lookback::io
