#include "cli/array_files.hpp"

#include "cli/cli_error.hpp"
#include "cli/exit_codes.hpp"
#include "io/atomic_file.hpp"
#include "io/io_error.hpp"
#include "io/npy.hpp"
#include "io/raw.hpp"
#include "typed/typed_ops.hpp"

#include <memory>

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

void require_dtype(const std::filesystem::path& path, const io::host_array& array, bool (*accepted)(io::dtype),
                   const std::string& supported, const std::string& role) {
  if (!accepted(array.type))
    throw cli_error(exit_code::data_error, path.string() + ": " + role + "dtype " + std::string(io::dtype_name(array.type)) +
                                               " is not supported (supported: " + supported + ")");
}

void require_numeric(const std::filesystem::path& path, const io::host_array& array) {
  require_dtype(path, array, typed::is_numeric, typed::numeric_dtype_list());
}

void save_array(const std::filesystem::path& output, const io::host_array& array,
                const std::filesystem::path& input) {
  save_arrays({{output, &array}}, {input});
}

void save_arrays(const std::vector<output_array>& outputs, const std::vector<std::filesystem::path>& inputs) {
  for (const output_array& out : outputs)
    for (const std::filesystem::path& input : inputs) io::refuse_same_file(input, out.path);
  // atomic_output_file cannot move, so each lives behind a pointer.
  std::vector<std::unique_ptr<io::atomic_output_file>> files;
  for (const output_array& out : outputs) {
    files.push_back(std::make_unique<io::atomic_output_file>(out.path));
    if (io::extension_lower(out.path) == ".npy")
      io::write_npy(*files.back(), *out.array);
    else
      io::write_raw(*files.back(), *out.array);
  }
  for (const auto& file : files) file->commit();
}

}  // namespace lookback::cli
