#include "cli/array_files.hpp"

#include "cli/cli_error.hpp"
#include "cli/exit_codes.hpp"
#include "io/atomic_file.hpp"
#include "io/io_error.hpp"
#include "io/npy.hpp"
#include "io/raw.hpp"
#include "typed/typed_ops.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <memory>

#include <fcntl.h>
#include <unistd.h>

namespace lookback::cli {

std::vector<double> finite_doubles(const io::host_array& a, const std::string& path,
                                   const std::function<std::string(std::int64_t)>& name_of) {
  std::vector<double> values(static_cast<std::size_t>(a.size()));
  for (std::int64_t i = 0; i < a.size(); ++i) {
    const double v = a.type == io::dtype::float32 ? a.as<float>()[i] : a.as<double>()[i];
    if (!std::isfinite(v)) throw cli_error(exit_code::data_error, path + ": " + name_of(i) + " is not finite");
    values[static_cast<std::size_t>(i)] = v;
  }
  return values;
}

io::host_array load_array(const std::filesystem::path& path, const std::string& raw_dtype,
                          const std::string& dtype_option) {
  const array_file file(path, raw_dtype, dtype_option);
  io::host_array a{file.type, file.shape, std::vector<std::byte>(static_cast<std::size_t>(file.size()) * io::dtype_size(file.type))};
  file.source().read(0, file.size(), a.bytes.data());
  return a;
}

array_file::array_file(const std::filesystem::path& p, const std::string& raw_dtype, const std::string& dtype_option)
    : path(p) {
  if (io::extension_lower(path) == ".npy") {
    if (!raw_dtype.empty())
      throw cli_error(exit_code::usage, dtype_option + " applies to raw input only; " + path.string() + " is a .npy file");
    io::npy_layout layout = io::read_npy_layout(path);
    type = layout.type;
    shape = std::move(layout.shape);
    data_offset = layout.data_offset;
  } else {
    if (raw_dtype.empty()) {
      (void)io::open_input(path);  // a missing file or a directory says so, not that it needs a dtype
      throw cli_error(exit_code::usage, path.string() + ": not a .npy file; give " + dtype_option + " to read it as raw elements");
    }
    const auto t = io::parse_dtype(raw_dtype);
    if (!t) throw cli_error(exit_code::usage, dtype_option + ": unknown dtype '" + raw_dtype + "'");
    type = *t;
    shape = {io::raw_item_count(path, type)};
  }
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw io::io_error(io::error_kind::no_input, path, std::string("cannot open for reading: ") + std::strerror(errno));
}

array_file::~array_file() {
  if (fd_ >= 0) ::close(fd_);
}

std::int64_t array_file::size() const {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

pipelines::file_source array_file::source() const {
  return {fd_, path.string(), data_offset, size(), io::dtype_size(type)};
}

namespace {
/// The items go out at their offsets (pwrite), which a pipe refuses: a FIFO is turned away before it is
/// opened (an open for writing would wait for a reader), anything else unseekable once it is.
const std::filesystem::path& not_a_pipe(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_fifo(std::filesystem::status(path, ec)))
    throw io::io_error(io::error_kind::cant_create, path,
                       "cannot write to a pipe: the items are written at their offsets, not in order");
  return path;
}
}  // namespace

array_output::array_output(const std::filesystem::path& path, io::dtype type, const std::vector<std::int64_t>& shape)
    : file_(not_a_pipe(path)), type_(type), npy_(io::extension_lower(path) == ".npy") {
  if (::lseek(file_.descriptor(), 0, SEEK_CUR) < 0)
    throw io::io_error(io::error_kind::cant_create, path,
                       "cannot write to it: the items are written at their offsets, and it cannot seek");
  if (npy_) {
    const std::string header = io::npy_header_for(type, shape);
    header_bytes_ = header.size();
    file_.write(header);
  }
}

pipelines::file_sink array_output::sink() const {
  return {file_.descriptor(), file_.path().string(), header_bytes_, io::dtype_size(type_)};
}

void array_output::commit(const std::vector<std::int64_t>& shape) {
  if (npy_) {
    const std::string header = io::npy_header_for(type_, shape, header_bytes_);
    pipelines::file_sink(file_.descriptor(), file_.path().string(), 0, 1)
        .write(0, static_cast<std::int64_t>(header.size()), header.data());
  }
  file_.commit();
}

void require_numeric(const std::filesystem::path& path, io::dtype type) {
  require_dtype(path, type, typed::is_numeric, typed::numeric_dtype_list());
}

void require_dtype(const std::filesystem::path& path, io::dtype type, bool (*accepted)(io::dtype),
                   const std::string& supported, const std::string& role) {
  if (!accepted(type))
    throw cli_error(exit_code::data_error, path.string() + ": " + role + "dtype " + std::string(io::dtype_name(type)) +
                                               " is not supported (supported: " + supported + ")");
}

void require_dtype(const std::filesystem::path& path, const io::host_array& array, bool (*accepted)(io::dtype),
                   const std::string& supported, const std::string& role) {
  require_dtype(path, array.type, accepted, supported, role);
}

void require_numeric(const std::filesystem::path& path, const io::host_array& array) {
  require_numeric(path, array.type);
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
