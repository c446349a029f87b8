#pragma once
// Reading the commands' input arrays and writing their outputs.
#include "io/array.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace lookback::cli {

/// A .npy file, or raw little-endian elements of `raw_dtype` (which must then be given, through the
/// option that messages name: compact's flags have their own).
io::host_array load_array(const std::filesystem::path& path, const std::string& raw_dtype,
                          const std::string& dtype_option = "--dtype");

/// Refuses an array whose dtype `accepted` rejects, naming the file, the dtype and the `supported` ones;
/// `role` ("values ") tells a command's arrays apart in the message.
void require_dtype(const std::filesystem::path& path, const io::host_array& array, bool (*accepted)(io::dtype),
                   const std::string& supported, const std::string& role = "");

/// Refuses dtypes that reduce and scan do not support, naming the file.
void require_numeric(const std::filesystem::path& path, const io::host_array& array);

/// .npy when the name ends so, raw bytes otherwise; atomically, never over an input.
void save_array(const std::filesystem::path& output, const io::host_array& array,
                const std::filesystem::path& input);

struct output_array {
  std::filesystem::path path;
  const io::host_array* array;
};

/// Several outputs as save_array writes one: every file is written to its temporary before any is
/// renamed into place, so that one that cannot be created or written leaves every existing output alone.
void save_arrays(const std::vector<output_array>& outputs, const std::vector<std::filesystem::path>& inputs);

}  // namespace lookback::cli
