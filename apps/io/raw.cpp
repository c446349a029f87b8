#include "io/raw.hpp"

#include <string>

#include "io/atomic_file.hpp"
#include "io/io_error.hpp"

namespace lookback::io {

std::int64_t raw_item_count(const std::filesystem::path& p, dtype t) {
  const input_file in = open_input(p);
  const std::size_t width = dtype_size(t);
  if (in.size % width != 0)
    throw io_error(error_kind::data_error, p,
                   "size " + std::to_string(in.size) + " bytes is not a multiple of " +
                       std::string(dtype_name(t)) + "'s " + std::to_string(width) + " bytes");
  return static_cast<std::int64_t>(in.size / width);
}

host_array read_raw(const std::filesystem::path& p, dtype t) {
  const std::int64_t count = raw_item_count(p, t);
  input_file in = open_input(p);
  host_array a;
  a.type = t;
  a.shape = {count};
  a.bytes.resize(static_cast<std::size_t>(count) * dtype_size(t));
  read_exact(in, p, a.bytes.data(), a.bytes.size());
  return a;
}

void write_raw(atomic_output_file& out, const host_array& a) { out.write(a.bytes.data(), a.bytes.size()); }

void write_raw(const std::filesystem::path& out, const host_array& a) {
  atomic_output_file f(out);
  write_raw(f, a);
  f.commit();
}

}  // namespace lookback::io
