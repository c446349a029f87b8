#pragma once
// Reading the commands' input arrays and writing their outputs.
#include "io/array.hpp"
#include "io/atomic_file.hpp"

#include <lookback/pipelines/sink.hpp>
#include <lookback/pipelines/source.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace lookback::cli {

/// A .npy file, or raw little-endian elements of `raw_dtype` (which must then be given, through the
/// option that messages name: compact's flags have their own).
io::host_array load_array(const std::filesystem::path& path, const std::string& raw_dtype,
                          const std::string& dtype_option = "--dtype");

/// The items of a float32 or float64 array as doubles, each refused (exit 65) unless finite; the error
/// names the file and `name_of(i)` ("tap 3", "mask tap (1, 2)").
std::vector<double> finite_doubles(const io::host_array& a, const std::string& path,
                                   const std::function<std::string(std::int64_t)>& name_of);

/// An input array left on disk for the streamed commands: its dtype and shape from the .npy header (or
/// --dtype and the size of a raw file), every check load_array makes, and a source that reads its
/// items in chunks. Opening it reads no data.
class array_file {
 public:
  array_file(const std::filesystem::path& path, const std::string& raw_dtype, const std::string& dtype_option = "--dtype");
  ~array_file();
  array_file(const array_file&) = delete;
  array_file& operator=(const array_file&) = delete;

  [[nodiscard]] std::int64_t size() const;
  [[nodiscard]] pipelines::file_source source() const;

  std::filesystem::path path;
  io::dtype type = io::dtype::uint8;
  std::vector<std::int64_t> shape;
  std::uint64_t data_offset = 0;

 private:
  int fd_ = -1;
};

/// A streamed command's output: the temporary file in the output's folder, a .npy header in front
/// when the name ends so (room for `shape`, the largest the result can be), items written at their
/// offsets through sink(), renamed into place by commit() with the result's real shape. Dropped
/// without commit(), the temporary goes and an existing output stays as it was.
class array_output {
 public:
  array_output(const std::filesystem::path& path, io::dtype type, const std::vector<std::int64_t>& shape);
  [[nodiscard]] pipelines::file_sink sink() const;
  void commit(const std::vector<std::int64_t>& shape);
  /// Where the items go until commit(), and the bytes in front of them (shared_output.hpp opens it on
  /// the other ranks).
  [[nodiscard]] const std::filesystem::path& temp_path() const { return file_.temp_path(); }
  [[nodiscard]] std::size_t header_bytes() const { return header_bytes_; }
  /// Whether the output is a device or pipe, written in place.
  [[nodiscard]] bool direct() const { return file_.direct(); }

 private:
  io::atomic_output_file file_;
  io::dtype type_;
  bool npy_;
  std::size_t header_bytes_ = 0;
};

/// Refuses an array whose dtype `accepted` rejects, naming the file, the dtype and the `supported` ones;
/// `role` ("values ") tells a command's arrays apart in the message.
void require_dtype(const std::filesystem::path& path, io::dtype type, bool (*accepted)(io::dtype),
                   const std::string& supported, const std::string& role = "");
void require_dtype(const std::filesystem::path& path, const io::host_array& array, bool (*accepted)(io::dtype),
                   const std::string& supported, const std::string& role = "");

/// Refuses dtypes that reduce and scan do not support, naming the file.
void require_numeric(const std::filesystem::path& path, const io::host_array& array);
void require_numeric(const std::filesystem::path& path, io::dtype type);

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
