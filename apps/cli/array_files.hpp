#pragma once
// Reading the commands' input arrays and writing their outputs.
#include "io/array.hpp"

#include <filesystem>
#include <string>

namespace lookback::cli {

/// A .npy file, or raw little-endian elements of `raw_dtype` (which must then be given, through the
/// option that messages name: compact's flags have their own).
io::host_array load_array(const std::filesystem::path& path, const std::string& raw_dtype,
                          const std::string& dtype_option = "--dtype");

/// Refuses dtypes that reduce and scan do not support, naming the file.
void require_numeric(const std::filesystem::path& path, const io::host_array& array);

/// .npy when the name ends so, raw bytes otherwise; atomically, never over an input.
void save_array(const std::filesystem::path& output, const io::host_array& array,
                const std::filesystem::path& input);

}  // namespace lookback::cli
