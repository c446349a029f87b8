#pragma once
// PNG through libpng. Reads grey (1 to 16 bits), RGB (8 or 16 bits) and palette images (expanded to
// 8-bit RGB); transparency (a tRNS chunk) is dropped; images with an alpha channel (grey + alpha, RGBA)
// are refused. Errors throw io_error naming the file: no_input (cannot open), data_error (not a PNG, a
// corrupt or truncated one, an unsupported kind), io_failure (reading or writing failed midway).
#include "io/array.hpp"
#include "io/atomic_file.hpp"

#include <filesystem>

namespace lookback::io {

/// An image array (image.hpp): uint8 samples, or uint16 for 16-bit PNGs.
host_array read_png(const std::filesystem::path& p);

/// Writes an image array (uint8 or uint16, grey or RGB) as an 8- or 16-bit PNG into `out`, left for
/// the caller to commit.
void write_png(atomic_output_file& out, const host_array& image);

}  // namespace lookback::io
