#include "cli/array_files.hpp"

#include "cli/cli_error.hpp"
#include "cli/exit_codes.hpp"
#include "io/atomic_file.hpp"
#include "io/io_error.hpp"
#include "io/npy.hpp"
#include "io/raw.hpp"
#include "typed/typed_ops.hpp"

namespace lookback::cli {

io::host_array load_array(const std::filesystem::path& path, const std::string& raw_dtype,
                          const std::string& dtype_option) {
  if (io::extension_lower(path) == ".npy") {
    if (!raw_dtype.empty())
      throw cli_error(exit_code::usage, dtype_option + " applies to raw input only; " + path.string() + " is a .npy file");
    return io::read_npy(path);
  }
  if (raw_dtype.empty())
    throw cli_error(exit_code::usage, path.string() + ": not a .npy file; give " + dtype_option + " to read it as raw elements");
  const auto type = io::parse_dtype(raw_dtype);
  if (!type) throw cli_error(exit_code::usage, dtype_option + ": unknown dtype '" + raw_dtype + "'");
  return io::read_raw(path, *type);
}

void require_numeric(const std::filesystem::path& path, const io::host_array& array) {
  if (!typed::is_numeric(array.type))
    throw cli_error(exit_code::data_error, path.string() + ": dtype " + std::string(io::dtype_name(array.type)) +
                                               " is not supported (supported: " + typed::numeric_dtype_list() + ")");
}

void save_array(const std::filesystem::path& output, const io::host_array& array,
                const std::filesystem::path& input) {
  io::refuse_same_file(input, output);
  if (io::extension_lower(output) == ".npy")
    io::write_npy(output, array);
  else
    io::write_raw(output, array);
}

}  // namespace lookback::cli
