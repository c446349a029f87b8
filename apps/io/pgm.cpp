#include "io/pgm.hpp"

#include "io/image.hpp"
#include "io/io_error.hpp"
#include "io/whole_file.hpp"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace lookback::io {
namespace {

[[noreturn]] void bad_data(const fs::path& p, const std::string& problem) {
  throw io_error(error_kind::data_error, p, problem);
}

bool is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

class pgm_parser {
 public:
  pgm_parser(const std::vector<unsigned char>& bytes, const fs::path& p) : b_(bytes), p_(p) {}

  /// A header field: whitespace and # comments before it, at least one character of whitespace after.
  std::uint64_t header_number(const char* what) {
    for (;;) {
      while (pos_ < b_.size() && is_space(b_[pos_])) ++pos_;
      if (pos_ >= b_.size() || b_[pos_] != '#') break;
      while (pos_ < b_.size() && b_[pos_] != '\n' && b_[pos_] != '\r') ++pos_;
    }
    const auto value = digits();
    if (!value) bad_data(p_, std::string("not a valid PGM: expected the ") + what + " in the header");
    return *value;
  }

  /// A sample of a plain (P2) raster: whitespace, then digits.
  std::optional<std::uint64_t> raster_number() {
    while (pos_ < b_.size() && is_space(b_[pos_])) ++pos_;
    return digits();
  }

  /// After maxval: comments, then the single whitespace character that separates the header from the
  /// raster. A comment's closing newline belongs to it and does not delimit the raster (the Netpbm
  /// specification's words).
  void end_of_header() {
    while (pos_ < b_.size() && b_[pos_] == '#') {
      while (pos_ < b_.size() && b_[pos_] != '\n' && b_[pos_] != '\r') ++pos_;
      if (pos_ < b_.size()) ++pos_;
    }
    if (pos_ >= b_.size() || !is_space(b_[pos_])) bad_data(p_, "not a valid PGM: no whitespace after maxval");
    ++pos_;
  }

  bool only_whitespace_left() {
    while (pos_ < b_.size() && is_space(b_[pos_])) ++pos_;
    return pos_ == b_.size();
  }

  std::size_t pos() const { return pos_; }

 private:
  // Ten digits at most: every field fits 32 bits, and a longer run is junk, not a number to overflow on.
  std::optional<std::uint64_t> digits() {
    std::uint64_t v = 0;
    std::size_t n = 0;
    while (pos_ < b_.size() && b_[pos_] >= '0' && b_[pos_] <= '9' && n < 10) v = v * 10 + (b_[pos_++] - '0'), ++n;
    if (n == 0 || (pos_ < b_.size() && b_[pos_] >= '0' && b_[pos_] <= '9')) return std::nullopt;
    if (pos_ < b_.size() && !is_space(b_[pos_]) && b_[pos_] != '#') return std::nullopt;
    return v;
  }

  const std::vector<unsigned char>& b_;
  const fs::path& p_;
  std::size_t pos_ = 2;  // past the magic
};

const char* other_netpbm_kind(unsigned char c) {
  switch (c) {
    case '1': case '4': return "PBM bitmap";
    case '3': case '6': return "PPM colour";
    case '7': return "PAM";
    default: return nullptr;
  }
}

}  // namespace

host_array read_pgm(const fs::path& p) {
  const std::vector<unsigned char> bytes = read_whole_file(p);
  if (bytes.size() < 2 || bytes[0] != 'P') bad_data(p, "not a PGM file (bad magic)");
  if (const char* kind = other_netpbm_kind(bytes[1]))
    bad_data(p, std::string(kind) + " (P" + static_cast<char>(bytes[1]) +
                    ") images are not supported (supported: grey PGM, binary P5 or plain P2)");
  if (bytes[1] != '5' && bytes[1] != '2') bad_data(p, "not a PGM file (bad magic)");
  if (bytes.size() > 2 && !is_space(bytes[2]) && bytes[2] != '#')
    bad_data(p, "not a valid PGM: no whitespace after the magic number P" + std::string(1, static_cast<char>(bytes[1])));
  const bool plain = bytes[1] == '2';
  pgm_parser in(bytes, p);
  const std::uint64_t width = in.header_number("width");
  const std::uint64_t height = in.header_number("height");
  const std::uint64_t maxval = in.header_number("maxval");
  if (maxval < 1 || maxval > 65535) bad_data(p, "not a valid PGM: maxval " + std::to_string(maxval) + " is not 1..65535");
  constexpr std::uint64_t max_side = std::numeric_limits<std::int32_t>::max();
  if (width > max_side || height > max_side)
    bad_data(p, "not a valid PGM: " + std::to_string(width) + " x " + std::to_string(height) + " is too large");
  in.end_of_header();

  const std::uint64_t pixels = width * height;
  const std::size_t sample_bytes = maxval < 256 ? 1 : 2;
  const std::size_t left = bytes.size() - in.pos();
  const std::string claim = "the header says " + std::to_string(width) + " x " + std::to_string(height) + " pixels";
  // Each plain sample takes a digit and a separator (the last one's is optional).
  const std::uint64_t needed = plain ? pixels * 2 - (pixels > 0 ? 1 : 0) : pixels * sample_bytes;
  if (needed > left)
    bad_data(p, "truncated PGM: " + claim + " (" + std::to_string(needed) + " bytes at least), the file holds " +
                    std::to_string(left) + " after the header");
  if (!plain && needed < left)
    bad_data(p, "not a valid PGM: " + claim + " of " + std::to_string(sample_bytes) + " bytes, but " +
                    std::to_string(left - needed) + " bytes of trailing data follow");

  host_array image;
  image.type = sample_bytes == 1 ? dtype::uint8 : dtype::uint16;
  image.shape = {static_cast<std::int64_t>(height), static_cast<std::int64_t>(width)};
  image.bytes.resize(static_cast<std::size_t>(pixels) * sample_bytes);
  const unsigned char* raster = bytes.data() + in.pos();
  for (std::uint64_t i = 0; i < pixels; ++i) {
    std::uint64_t v = 0;
    if (plain) {
      const auto sample = in.raster_number();
      if (!sample) bad_data(p, "not a valid PGM: sample " + std::to_string(i) + " is missing or malformed (" + claim + ")");
      v = *sample;
    } else {
      v = sample_bytes == 1 ? raster[i] : (std::uint64_t{raster[2 * i]} << 8 | raster[2 * i + 1]);  // big-endian
    }
    if (v > maxval)
      bad_data(p, "not a valid PGM: sample " + std::to_string(i) + " is " + std::to_string(v) + ", above maxval " +
                      std::to_string(maxval));
    if (sample_bytes == 1)
      image.as<std::uint8_t>()[i] = static_cast<std::uint8_t>(v);
    else
      image.as<std::uint16_t>()[i] = static_cast<std::uint16_t>(v);
  }
  if (plain && !in.only_whitespace_left()) bad_data(p, "not a valid PGM: trailing data after " + claim);
  return image;
}

void write_pgm(atomic_output_file& out, const host_array& image) {
  const bool wide = image.type == dtype::uint16;
  out.write("P5\n" + std::to_string(image_width(image)) + " " + std::to_string(image_height(image)) + "\n" +
            (wide ? "65535" : "255") + "\n");
  if (!wide) return out.write(image.bytes.data(), image.bytes.size());
  std::vector<unsigned char> big_endian(image.bytes.size());
  const std::uint16_t* samples = image.as<std::uint16_t>();
  for (std::size_t i = 0; i < big_endian.size() / 2; ++i) {
    big_endian[2 * i] = static_cast<unsigned char>(samples[i] >> 8);
    big_endian[2 * i + 1] = static_cast<unsigned char>(samples[i] & 0xff);
  }
  out.write(big_endian.data(), big_endian.size());
}

}  // namespace lookback::io
