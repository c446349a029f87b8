#pragma once
// Grey netpbm images: binary P5 (8-bit samples up to maxval 255, 16-bit big-endian past it) and plain
// P2 read; P5 written. Samples are kept as stored (not rescaled to the maxval). Errors throw io_error
// naming the file: no_input (cannot open), data_error (not a PGM, a header that does not match the
// data, a sample above maxval, a colour or bitmap netpbm kind), io_failure (reading failed midway).
#include "io/array.hpp"
#include "io/atomic_file.hpp"

#include <filesystem>

namespace lookback::io {

/// A (height, width) image array: uint8 when maxval < 256, uint16 otherwise.
host_array read_pgm(const std::filesystem::path& p);

/// A grey uint8 (maxval 255) or uint16 (maxval 65535) image array as P5 into `out`, left for the caller to commit.
void write_pgm(atomic_output_file& out, const host_array& image);

}  // namespace lookback::io
