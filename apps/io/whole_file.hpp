#pragma once
// A small input file read into memory in one go, for formats (PNG, PGM) whose decoders want it all.
#include "io/atomic_file.hpp"

#include <cstddef>
#include <filesystem>
#include <vector>

namespace lookback::io {

/// Throws io_error: no_input when the file cannot be opened, io_failure when reading fails midway.
inline std::vector<unsigned char> read_whole_file(const std::filesystem::path& p) {
  input_file in = open_input(p);
  std::vector<unsigned char> bytes(static_cast<std::size_t>(in.size));
  read_exact(in, p, bytes.data(), bytes.size());
  return bytes;
}

}  // namespace lookback::io
