#include "io/npy.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstddef>
#include <limits>
#include <map>
#include <stdexcept>
#include <string_view>

#include "io/atomic_file.hpp"
#include "io/io_error.hpp"

// Elements are handed over as raw bytes, so the host must share .npy's byte order.
#if defined(__BYTE_ORDER__)
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "npy I/O assumes a little-endian host");
#endif

namespace fs = std::filesystem;

namespace lookback::io {
namespace {

constexpr std::string_view magic{"\x93NUMPY", 6};
constexpr std::size_t magic_and_version = 8;
// NumPy itself refuses headers over 10000 bytes by default; anything this large
// is corrupt, and bounding it keeps a bogus length from driving an allocation.
constexpr std::uint64_t max_header_len = 65536;

[[noreturn]] void bad_data(const fs::path& p, const std::string& problem) {
  throw io_error(error_kind::data_error, p, problem);
}

// --- the header: a Python dict literal --------------------------------------

// Just enough of Python's literal syntax for what NumPy writes (and what older
// NumPy or hand-written files might): strings, True/False/None, integers
// (with a Python 2 'L' suffix), and tuples/lists of those.
struct py_value {
  enum class kind { string, boolean, none, integer, sequence } k = kind::none;
  std::string text;  // string contents, or an integer literal as written
  bool flag = false;
  std::vector<py_value> items;
};

class header_parser {
 public:
  header_parser(std::string_view text, const fs::path& file) : s_(text), file_(file) {}

  std::map<std::string, py_value> parse_dict() {
    std::map<std::string, py_value> dict;
    skip_ws();
    expect('{', "'{' opening the header dict");
    while (!eat('}')) {
      skip_ws();
      if (peek() != '\'' && peek() != '"') fail("expected a quoted key");
      std::string key = parse_string();
      expect(':', "':' after key '" + key + "'");
      py_value v = parse_value();
      if (!dict.emplace(key, std::move(v)).second) fail("duplicate key '" + key + "'");
      if (!eat(',')) {
        expect('}', "',' or '}' after the value of '" + key + "'");
        break;
      }
    }
    skip_ws();
    if (pos_ != s_.size()) fail("unexpected text after the header dict");
    return dict;
  }

 private:
  py_value parse_value() {
    skip_ws();
    py_value v;
    const char c = peek();
    if (c == '\'' || c == '"') {
      v.k = py_value::kind::string;
      v.text = parse_string();
    } else if (c == '(' || c == '[') {
      // Bounded so that a crafted header cannot exhaust the stack.
      if (++depth_ > max_depth) fail("sequences nested too deeply");
      v.k = py_value::kind::sequence;
      ++pos_;
      const char close = c == '(' ? ')' : ']';
      while (!eat(close)) {
        v.items.push_back(parse_value());
        if (!eat(',')) {
          expect(close, std::string("',' or '") + close + "' in a sequence");
          break;
        }
      }
      --depth_;
    } else if (c == '-' || c == '+' || is_digit(c)) {
      v.k = py_value::kind::integer;
      const std::size_t start = pos_++;
      while (pos_ < s_.size() && is_digit(s_[pos_])) ++pos_;
      v.text = std::string(s_.substr(start, pos_ - start));
      if (pos_ < s_.size() && (s_[pos_] == 'L' || s_[pos_] == 'l')) ++pos_;
    } else if (word("True") || word("False")) {
      v.k = py_value::kind::boolean;
      v.flag = c == 'T';
    } else if (word("None")) {
      v.k = py_value::kind::none;
    } else {
      fail("expected a value");
    }
    return v;
  }

  std::string parse_string() {
    const char quote = s_[pos_++];
    std::string out;
    while (pos_ < s_.size() && s_[pos_] != quote) {
      if (s_[pos_] == '\\' && pos_ + 1 < s_.size()) ++pos_;
      out += s_[pos_++];
    }
    if (pos_ == s_.size()) fail("unterminated string");
    ++pos_;
    return out;
  }

  static bool is_digit(char c) { return c >= '0' && c <= '9'; }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }

  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }

  bool eat(char c) {
    skip_ws();
    if (peek() != c) return false;
    ++pos_;
    return true;
  }

  void expect(char c, const std::string& what) {
    if (!eat(c)) fail("expected " + what);
  }

  bool word(std::string_view w) {
    if (s_.substr(pos_, w.size()) != w) return false;
    pos_ += w.size();
    return true;
  }

  [[noreturn]] void fail(const std::string& what) const {
    bad_data(file_, "unparsable header: " + what + " at offset " + std::to_string(pos_));
  }

  static constexpr int max_depth = 16;

  std::string_view s_;
  const fs::path& file_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

// --- descr <-> dtype ----------------------------------------------------------

// NumPy type codes, indexed like the dtype enumeration.
constexpr std::array<std::string_view, 11> npy_codes = {"b1", "i1", "i2", "i4", "i8", "u1",
                                                        "u2", "u4", "u8", "f4", "f8"};

std::string descr_of(dtype t) {
  // '|' means "byte order not applicable", which is how NumPy spells 1-byte types.
  return (dtype_size(t) == 1 ? "|" : "<") + std::string(npy_codes[static_cast<std::size_t>(t)]);
}

dtype dtype_from_descr(const std::string& descr, const fs::path& p) {
  std::string_view code = descr;
  char order = '=';
  if (!code.empty() && std::string_view("<>|=").find(code.front()) != std::string_view::npos) {
    order = code.front();
    code.remove_prefix(1);
  }
  for (std::size_t i = 0; i < npy_codes.size(); ++i) {
    if (npy_codes[i] != code) continue;
    const auto t = static_cast<dtype>(i);
    if (order == '>' && dtype_size(t) > 1)
      bad_data(p, "big-endian dtype '" + descr + "' not supported (little-endian expected)");
    return t;
  }
  if (!code.empty() && code.front() == 'O') bad_data(p, "object arrays ('" + descr + "') not supported");
  if (!code.empty() && code.front() == 'c') bad_data(p, "complex dtype '" + descr + "' not supported");
  bad_data(p, "unsupported dtype '" + descr + "' (supported: b1, i1, i2, i4, i8, u1, u2, u4, u8, f4, f8)");
}

// --- header semantics ---------------------------------------------------------

struct npy_header {
  dtype type;
  std::vector<std::int64_t> shape;
};

const py_value& required(const std::map<std::string, py_value>& dict, const char* key, const fs::path& p) {
  const auto it = dict.find(key);
  if (it == dict.end()) bad_data(p, std::string("header has no '") + key + "' key");
  return it->second;
}

std::vector<std::int64_t> shape_from(const py_value& v, const fs::path& p) {
  if (v.k != py_value::kind::sequence) bad_data(p, "header 'shape' is not a tuple");
  std::vector<std::int64_t> shape;
  for (const py_value& item : v.items) {
    if (item.k != py_value::kind::integer) bad_data(p, "header 'shape' holds a non-integer");
    std::string_view digits = item.text;
    if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
    std::int64_t d = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), d);
    if (ec == std::errc::result_out_of_range) bad_data(p, "shape dimension " + item.text + " is too large");
    if (ec != std::errc() || end != digits.data() + digits.size())
      bad_data(p, "header 'shape' holds a malformed integer '" + item.text + "'");
    if (d < 0) bad_data(p, "negative dimension " + item.text + " in shape");
    shape.push_back(d);
  }
  if (shape.empty()) bad_data(p, "0-D (scalar) array not supported (1-D or 2-D expected)");
  if (shape.size() > 2)
    bad_data(p, std::to_string(shape.size()) + "-D array not supported (1-D or 2-D expected)");
  return shape;
}

npy_header interpret(const std::map<std::string, py_value>& dict, const fs::path& p) {
  for (const auto& entry : dict)
    if (entry.first != "descr" && entry.first != "fortran_order" && entry.first != "shape")
      bad_data(p, "unexpected key '" + entry.first + "' in header");

  const py_value& descr = required(dict, "descr", p);
  if (descr.k == py_value::kind::sequence) bad_data(p, "structured dtypes not supported");
  if (descr.k != py_value::kind::string) bad_data(p, "header 'descr' is not a string");

  const py_value& fortran = required(dict, "fortran_order", p);
  if (fortran.k != py_value::kind::boolean) bad_data(p, "header 'fortran_order' is not True or False");

  npy_header h;
  h.type = dtype_from_descr(descr.text, p);
  h.shape = shape_from(required(dict, "shape", p), p);
  // Column-major bytes are row-major ones while at most one extent exceeds 1 (some writers mark every
  // 1-D array so).
  if (fortran.flag && std::count_if(h.shape.begin(), h.shape.end(), [](std::int64_t d) { return d > 1; }) > 1)
    bad_data(p, "Fortran-order (column-major) arrays not supported; save a C-contiguous array");
  return h;
}

// Byte count of the data, refusing shapes whose size cannot be represented
// (which no real file can satisfy anyway).
std::uint64_t data_bytes(const npy_header& h, const fs::path& p) {
  constexpr std::uint64_t limit = std::numeric_limits<std::int64_t>::max();
  std::uint64_t n = dtype_size(h.type);
  for (std::int64_t d : h.shape) {
    const auto ud = static_cast<std::uint64_t>(d);
    if (ud != 0 && n > limit / ud)
      bad_data(p, "shape " + shape_string(h.shape) + " of " + std::string(dtype_name(h.type)) +
                      " is too large (byte count overflows 64 bits)");
    n *= ud;
  }
  return n;
}

std::uint64_t read_le(const unsigned char* b, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = n; i-- > 0;) v = (v << 8) | b[i];
  return v;
}

void put_le(std::string& out, std::uint64_t v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

// Reads magic, version and header length; returns the header length and sets
// `prefix` to the bytes before the header.
std::uint64_t read_preamble(input_file& in, const fs::path& p, std::uint64_t& prefix) {
  if (in.size < magic_and_version)
    bad_data(p, "not a .npy file: too short (" + std::to_string(in.size) + " bytes)");
  unsigned char head[magic_and_version + 4];
  read_exact(in, p, head, magic_and_version);
  if (std::string_view(reinterpret_cast<const char*>(head), magic.size()) != magic)
    bad_data(p, "not a .npy file: bad magic (expected \\x93NUMPY)");

  const unsigned major = head[6], minor = head[7];
  if ((major < 1 || major > 3) || minor != 0)
    bad_data(p, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                    " (1.0, 2.0 and 3.0 supported)");

  const std::size_t len_bytes = major == 1 ? 2 : 4;
  prefix = magic_and_version + len_bytes;
  if (in.size < prefix) bad_data(p, "truncated header: file ends inside the header length field");
  read_exact(in, p, head + magic_and_version, len_bytes);
  const std::uint64_t header_len = read_le(head + magic_and_version, len_bytes);

  if (header_len > in.size - prefix)
    bad_data(p, "header length " + std::to_string(header_len) + " runs past end of file (file holds " +
                    std::to_string(in.size) + " bytes)");
  if (header_len > max_header_len)
    bad_data(p, "header length " + std::to_string(header_len) + " is implausibly large (limit " +
                    std::to_string(max_header_len) + " bytes)");
  return header_len;
}

std::string size_mismatch(const char* what, const npy_header& h, std::uint64_t expected, std::uint64_t held) {
  const std::uint64_t elements = expected / dtype_size(h.type);
  return std::string(what) + ": header says " + std::to_string(elements) + " elements of " +
         std::string(dtype_name(h.type)) + " (" + std::to_string(expected) + " bytes) but file holds " +
         std::to_string(held) + " bytes";
}

}  // namespace

npy_layout read_npy_layout(const fs::path& p) {
  input_file in = open_input(p);
  std::uint64_t prefix = 0;
  const std::uint64_t header_len = read_preamble(in, p, prefix);

  std::string text(header_len, '\0');
  read_exact(in, p, text.data(), text.size());
  const npy_header h = interpret(header_parser(text, p).parse_dict(), p);

  // Checked before allocating, so a lying header cannot request gigabytes.
  const std::uint64_t expected = data_bytes(h, p);
  const std::uint64_t held = in.size - prefix - header_len;
  if (held < expected) bad_data(p, size_mismatch("truncated data", h, expected, held));
  if (held > expected)
    bad_data(p, size_mismatch("trailing data after the array", h, expected, held) + " (" +
                    std::to_string(held - expected) + " extra)");
  return {h.type, h.shape, prefix + header_len};
}

host_array read_npy(const fs::path& p) {
  const npy_layout layout = read_npy_layout(p);
  input_file in = open_input(p);
  in.stream.seekg(static_cast<std::streamoff>(layout.data_offset));
  host_array a;
  a.type = layout.type;
  a.shape = layout.shape;
  a.bytes.resize(static_cast<std::size_t>(a.size()) * dtype_size(a.type));
  if (in.size < layout.data_offset + a.bytes.size())
    throw io_error(error_kind::io_failure, p, "file shrank while being read");
  read_exact(in, p, a.bytes.data(), a.bytes.size());
  return a;
}

std::string npy_header_for(dtype t, const std::vector<std::int64_t>& shape, std::size_t length) {
  std::string header = npy_header_for(t, shape);
  if (length <= header.size()) return header;
  // Pad the dict with spaces before its newline and fix the stored header length.
  const bool v1 = header[6] == 1;
  const std::size_t prefix = v1 ? 10 : 12;
  header.insert(header.size() - 1, length - header.size(), ' ');
  std::string out = header.substr(0, 8);
  put_le(out, header.size() - prefix, v1 ? 2 : 4);
  return out + header.substr(prefix);
}

std::string npy_header_for(dtype t, const std::vector<std::int64_t>& shape) {
  constexpr std::size_t align = 64;
  std::string dict =
      "{'descr': '" + descr_of(t) + "', 'fortran_order': False, 'shape': " + shape_string(shape) + ", }";
  const auto padded = [&](std::size_t prefix) {
    return (prefix + dict.size() + 1 + align - 1) / align * align;
  };

  // Version 2.0 exists only to lift 1.0's 16-bit header length; prefer 1.0,
  // which every reader understands.
  const bool v1 = padded(10) - 10 <= std::numeric_limits<std::uint16_t>::max();
  const std::size_t prefix = v1 ? 10 : 12;
  const std::size_t total = padded(prefix);
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';

  std::string out(magic);
  out += static_cast<char>(v1 ? 1 : 2);
  out += '\0';
  put_le(out, dict.size(), v1 ? 2 : 4);
  return out + dict;
}

void write_npy(atomic_output_file& out, const host_array& a) {
  for (std::int64_t d : a.shape)
    if (d < 0) throw std::invalid_argument("write_npy: negative dimension in shape " + shape_string(a.shape));
  if (a.bytes.size() != static_cast<std::uint64_t>(a.size()) * dtype_size(a.type))
    throw std::invalid_argument("write_npy: byte count does not match shape " + shape_string(a.shape));

  out.write(npy_header_for(a.type, a.shape));
  out.write(a.bytes.data(), a.bytes.size());
}

void write_npy(const fs::path& out, const host_array& a) {
  atomic_output_file f(out);
  write_npy(f, a);
  f.commit();
}

}  // namespace lookback::io
