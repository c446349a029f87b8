#pragma once
// PNG and PGM files built by hand (zlib and the chunk layout, no libpng), so that the tests of the
// image readers and of the image commands do not trust the writer under test, and can say whatever
// the test needs, true or not.
#include <zlib.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace lookback_test_images {

inline std::string be32(std::uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}

inline std::string png_chunk(const std::string& kind, const std::string& data) {
  const std::string body = kind + data;
  const auto crc = static_cast<std::uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size())));
  return be32(static_cast<std::uint32_t>(data.size())) + body + be32(crc);
}

inline std::string png_signature() { return std::string("\x89PNG\r\n\x1a\n", 8); }

inline std::string png_ihdr(std::uint32_t width, std::uint32_t height, int bit_depth, int color_type) {
  return png_chunk("IHDR", be32(width) + be32(height) + static_cast<char>(bit_depth) + static_cast<char>(color_type) +
                               std::string(3, '\0'));
}

inline std::string deflate(const std::string& raw) {
  uLongf size = compressBound(static_cast<uLong>(raw.size()));
  std::string out(size, '\0');
  if (compress(reinterpret_cast<Bytef*>(out.data()), &size, reinterpret_cast<const Bytef*>(raw.data()),
               static_cast<uLong>(raw.size())) != Z_OK)
    throw std::runtime_error("zlib compress failed");
  out.resize(size);
  return out;
}

/// A PNG of `rows` (each row's packed samples, big-endian for 16 bits; a filter byte 0 is added), with
/// a PLTE chunk when `palette` (RGB triples) is given and any extra chunks before IDAT.
inline std::string png_bytes(std::uint32_t width, int bit_depth, int color_type, const std::vector<std::string>& rows,
                             const std::string& palette = "", const std::string& extra_chunks = "") {
  std::string raw;
  for (const std::string& row : rows) raw += '\0' + row;
  std::string png = png_signature() + png_ihdr(width, static_cast<std::uint32_t>(rows.size()), bit_depth, color_type);
  if (!palette.empty()) png += png_chunk("PLTE", palette);
  return png + extra_chunks + png_chunk("IDAT", deflate(raw)) + png_chunk("IEND", "");
}

/// An 8-bit grey PNG of the given samples (height rows of width).
inline std::string grey_png(std::uint32_t width, const std::vector<std::uint8_t>& samples) {
  std::vector<std::string> rows;
  for (std::size_t at = 0; at < samples.size(); at += width)
    rows.emplace_back(reinterpret_cast<const char*>(samples.data() + at), width);
  return png_bytes(width, 8, 0, rows);
}

/// A binary PGM (P5) with an 8-bit raster, header as given.
inline std::string pgm_bytes(int width, int height, int maxval, const std::string& raster) {
  return "P5\n" + std::to_string(width) + " " + std::to_string(height) + "\n" + std::to_string(maxval) + "\n" + raster;
}

}  // namespace lookback_test_images
