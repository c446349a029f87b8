#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "io/array.hpp"
#include "io/atomic_file.hpp"
#include "io/dtype.hpp"

namespace lookback::io {

// Reads a NumPy .npy file (format 1.0, 2.0 or 3.0) holding a 1-D or 2-D,
// C-ordered, little-endian array of a supported dtype.  Every problem throws
// io_error with a one-line message naming the file: no_input when the file
// cannot be opened, data_error when its contents are not such an array,
// io_failure when reading fails midway.
host_array read_npy(const std::filesystem::path& p);

// Where a .npy file's array lies, with every check read_npy makes on the header and the file's size,
// but no data read: streamed commands read the items in chunks from data_offset.
struct npy_layout {
  dtype type = dtype::uint8;
  std::vector<std::int64_t> shape;
  std::uint64_t data_offset = 0;
};
npy_layout read_npy_layout(const std::filesystem::path& p);

// Writes format 1.0 (2.0 only if the header would not fit), atomically, so a
// failure leaves any existing file untouched.  Any number of dimensions.
void write_npy(const std::filesystem::path& out, const host_array& a);
// The same into an open output, left for the caller to commit (with others).
void write_npy(atomic_output_file& out, const host_array& a);

// Everything before the data: magic, version, header length and the padded
// header dict, a multiple of 64 bytes long as NumPy writes it.
std::string npy_header_for(dtype t, const std::vector<std::int64_t>& shape);
// The same padded with spaces to `length` bytes when it is shorter (a streamed compaction reserves the
// header of the largest result, then writes the real one over it).
std::string npy_header_for(dtype t, const std::vector<std::int64_t>& shape, std::size_t length);

}  // namespace lookback::io
