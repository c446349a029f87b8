#pragma once

#include <filesystem>

#include "io/array.hpp"
#include "io/atomic_file.hpp"
#include "io/dtype.hpp"

namespace lookback::io {

// Reads a headerless file of little-endian elements as a 1-D array.  The file
// size must be a whole number of elements (data_error otherwise); open and read
// failures throw io_error as read_npy does.
host_array read_raw(const std::filesystem::path& p, dtype t);

// The number of elements of `t` a raw file holds, with read_raw's checks, reading no data.
std::int64_t raw_item_count(const std::filesystem::path& p, dtype t);

// Writes the element bytes only (shape and dtype are not recorded), atomically.
void write_raw(const std::filesystem::path& out, const host_array& a);
// The same into an open output, left for the caller to commit (with others).
void write_raw(atomic_output_file& out, const host_array& a);

}  // namespace lookback::io
