#include "io/png.hpp"

#include "io/image.hpp"
#include "io/io_error.hpp"
#include "io/whole_file.hpp"

#include <png.h>

#include <csetjmp>
#include <cstddef>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace lookback::io {
namespace {

// libpng reports errors by longjmp. Every function that may be jumped out of (the callbacks) or into
// (the decode_* and encode_* steps, which call setjmp) holds only trivially destructible locals, so no
// destructor is ever skipped; the C++ objects live in their callers.
struct png_state {
  const unsigned char* data = nullptr;  // reading: the whole file
  std::size_t size = 0;
  std::size_t pos = 0;
  atomic_output_file* out = nullptr;  // writing
  std::exception_ptr write_error;
  char message[256] = {};
};

void on_error(png_structp png, png_const_charp message) {
  auto* state = static_cast<png_state*>(png_get_error_ptr(png));
  std::strncpy(state->message, message, sizeof state->message - 1);
  png_longjmp(png, 1);
}

// Warnings (a bad ancillary chunk's CRC, say) do not stop decoding, and the command's stderr is kept
// for its one error line.
void on_warning(png_structp, png_const_charp) {}

void read_from_memory(png_structp png, png_bytep dst, png_size_t n) {
  auto* state = static_cast<png_state*>(png_get_io_ptr(png));
  if (n > state->size - state->pos) png_error(png, "truncated file");
  std::memcpy(dst, state->data + state->pos, n);
  state->pos += n;
}

void write_to_file(png_structp png, png_bytep data, png_size_t n) {
  auto* state = static_cast<png_state*>(png_get_io_ptr(png));
  bool failed = false;
  try {
    state->out->write(data, n);
  } catch (...) {
    state->write_error = std::current_exception();
    failed = true;
  }
  // Outside the handler: jumping out of a catch block would leave the exception half-handled.
  if (failed) png_error(png, "write failed");
}

void flush_nothing(png_structp) {}

struct header {
  png_uint_32 width = 0, height = 0;
  int color_type = 0;
  std::size_t stored_row_bytes = 0;  // a row as the file stores it, before any expansion
  int channels = 0, bit_depth = 0;   // after the expansions
  std::size_t row_bytes = 0;
};

/// Reads the chunks before the image data.
bool decode_header(png_structp png, png_infop info, header* h) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_read_info(png, info);
  h->width = png_get_image_width(png, info);
  h->height = png_get_image_height(png, info);
  h->color_type = png_get_color_type(png, info);
  h->stored_row_bytes = png_get_rowbytes(png, info);
  return true;
}

/// Sets the expansions to 8-bit grey or RGB (16-bit kept) and sizes the rows they make. A palette
/// image is read as one index a byte, expanded here (expand_palette): libpng would turn an index past
/// the palette into black without a word.
bool decode_expansions(png_structp png, png_infop info, header* h) {
  if (setjmp(png_jmpbuf(png))) return false;
  if (h->color_type == PNG_COLOR_TYPE_PALETTE && png_get_bit_depth(png, info) < 8) png_set_packing(png);
  if (h->color_type == PNG_COLOR_TYPE_GRAY && png_get_bit_depth(png, info) < 8) png_set_expand_gray_1_2_4_to_8(png);
  // Transparency has no meaning for a filter.
  if (png_get_valid(png, info, PNG_INFO_tRNS) != 0) png_set_strip_alpha(png);
  if (png_get_bit_depth(png, info) == 16) png_set_swap(png);  // to the host's (little-endian) order
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  h->channels = png_get_channels(png, info);
  h->bit_depth = png_get_bit_depth(png, info);
  h->row_bytes = png_get_rowbytes(png, info);
  return true;
}

bool decode_rows(png_structp png, png_bytepp rows) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_read_image(png, rows);
  png_read_end(png, nullptr);
  return true;
}

/// A palette image's indices (one a byte), read into the last third of `image`'s bytes, expanded in
/// place to RGB, or what is wrong with them. Pixel i's RGB ends before index i + 1, so no index is
/// overwritten before it is read, and the image never takes more than its RGB bytes.
std::string expand_palette(png_structp png, png_infop info, host_array& image) {
  png_colorp palette = nullptr;
  int entries = 0;
  if (png_get_PLTE(png, info, &palette, &entries) == 0) return "a palette image without a PLTE chunk";
  auto* rgb = reinterpret_cast<unsigned char*>(image.bytes.data());
  const std::size_t pixels = image.bytes.size() / 3;
  const unsigned char* indices = rgb + 2 * pixels;
  for (std::size_t i = 0; i < pixels; ++i) {
    const int index = indices[i];
    if (index >= entries)
      return "pixel " + std::to_string(i) + " indexes entry " + std::to_string(index) + " past its palette of " +
             std::to_string(entries) + (entries == 1 ? " entry" : " entries");
    rgb[3 * i] = palette[index].red;
    rgb[3 * i + 1] = palette[index].green;
    rgb[3 * i + 2] = palette[index].blue;
  }
  return {};
}

bool encode(png_structp png, png_infop info, png_uint_32 width, png_uint_32 height, int bit_depth, int color_type,
            png_bytepp rows) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_set_IHDR(png, info, width, height, bit_depth, color_type, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  if (bit_depth == 16) png_set_swap(png);
  png_write_image(png, rows);
  png_write_end(png, nullptr);
  return true;
}

const char* color_type_name(int color_type) {
  switch (color_type) {
    case PNG_COLOR_TYPE_GRAY_ALPHA: return "grey + alpha";
    case PNG_COLOR_TYPE_RGB_ALPHA: return "RGBA";
    default: return "unknown";
  }
}

// Deflate expands at most about 1032 to 1; a header that claims more stored pixel data than that from
// the whole file is lying, and believing it would only allocate the memory for nothing. Stored, not
// expanded: a 1-bit palette image takes 24 times its stored rows as RGB (its indices are decoded into
// the RGB bytes' last third), a 1-bit grey one 8 times, so the guard lets a lying header of such images
// cost up to 24 x 1100 times its file's size before libpng finds the data missing.
constexpr double max_inflation = 1100.0;

}  // namespace

host_array read_png(const fs::path& p) {
  const std::vector<unsigned char> bytes = read_whole_file(p);
  if (bytes.size() < 8 || png_sig_cmp(bytes.data(), 0, 8) != 0)
    throw io_error(error_kind::data_error, p, "not a PNG file (bad signature)");
  png_state state;
  state.data = bytes.data();
  state.size = bytes.size();
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &state, on_error, on_warning);
  png_infop info = png != nullptr ? png_create_info_struct(png) : nullptr;
  struct guard {
    png_structp& png;
    png_infop& info;
    ~guard() { png_destroy_read_struct(&png, &info, nullptr); }
  } cleanup{png, info};
  if (info == nullptr) throw std::bad_alloc();
  png_set_read_fn(png, &state, read_from_memory);
  // libpng's default limit (a million pixels a side) would refuse PNGs this library writes; the
  // format's own limit here, and the inflation check below bounds what a header can make us allocate.
  png_set_user_limits(png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);

  header h;
  if (!decode_header(png, info, &h)) throw io_error(error_kind::data_error, p, std::string("not a valid PNG: ") + state.message);
  if ((h.color_type & PNG_COLOR_MASK_ALPHA) != 0)
    throw io_error(error_kind::data_error, p,
                   std::string(color_type_name(h.color_type)) +
                       " PNG not supported (supported: grey, RGB and palette PNGs of up to 16 bits, without alpha)");
  if (static_cast<double>(h.height) * static_cast<double>(h.stored_row_bytes) >
      max_inflation * static_cast<double>(bytes.size()))
    throw io_error(error_kind::data_error, p,
                   "not a valid PNG: the header claims " + std::to_string(h.width) + " x " + std::to_string(h.height) +
                       " pixels, more than its " + std::to_string(bytes.size()) + " bytes can hold");
  if (!decode_expansions(png, info, &h))
    throw io_error(error_kind::data_error, p, std::string("not a valid PNG: ") + state.message);

  const bool indexed = h.color_type == PNG_COLOR_TYPE_PALETTE;
  host_array image;
  image.type = h.bit_depth == 16 ? dtype::uint16 : dtype::uint8;
  image.shape = {static_cast<std::int64_t>(h.height), static_cast<std::int64_t>(h.width)};
  if (h.channels == 3 || indexed) image.shape.push_back(3);
  const std::size_t decoded_bytes = static_cast<std::size_t>(h.height) * h.row_bytes;
  image.bytes.resize(indexed ? 3 * decoded_bytes : decoded_bytes);
  unsigned char* decoded = reinterpret_cast<unsigned char*>(image.bytes.data()) + (indexed ? 2 * decoded_bytes : 0);
  std::vector<png_bytep> rows(h.height);
  for (std::size_t r = 0; r < rows.size(); ++r) rows[r] = decoded + r * h.row_bytes;
  if (!decode_rows(png, rows.data())) throw io_error(error_kind::data_error, p, std::string("not a valid PNG: ") + state.message);
  if (indexed)
    if (const std::string problem = expand_palette(png, info, image); !problem.empty())
      throw io_error(error_kind::data_error, p, "not a valid PNG: " + problem);
  return image;
}

void write_png(atomic_output_file& out, const host_array& image) {
  const int channels = image_channels(image);
  const int bit_depth = image.type == dtype::uint16 ? 16 : 8;
  if (image_width(image) > PNG_UINT_31_MAX || image_height(image) > PNG_UINT_31_MAX)
    throw io_error(error_kind::cant_create, out.path(), "a PNG holds at most 2^31 - 1 rows of 2^31 - 1 pixels");
  const auto width = static_cast<png_uint_32>(image_width(image));
  const auto height = static_cast<png_uint_32>(image_height(image));
  png_state state;
  state.out = &out;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &state, on_error, on_warning);
  png_infop info = png != nullptr ? png_create_info_struct(png) : nullptr;
  struct guard {
    png_structp& png;
    png_infop& info;
    ~guard() { png_destroy_write_struct(&png, &info); }
  } cleanup{png, info};
  if (info == nullptr) throw std::bad_alloc();
  // libpng's default limit (a million pixels a side) is a reader's guard, not the format's.
  png_set_user_limits(png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
  png_set_write_fn(png, &state, write_to_file, flush_nothing);

  const std::size_t row_bytes = static_cast<std::size_t>(width) * static_cast<std::size_t>(channels) * (bit_depth / 8);
  std::vector<png_bytep> rows(height);
  // libpng takes non-const rows but only reads them.
  auto* base = const_cast<png_bytep>(reinterpret_cast<const unsigned char*>(image.bytes.data()));
  for (std::size_t r = 0; r < rows.size(); ++r) rows[r] = base + r * row_bytes;
  if (!encode(png, info, width, height, bit_depth, channels == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_GRAY,
              rows.data())) {
    if (state.write_error) std::rethrow_exception(state.write_error);
    throw io_error(error_kind::io_failure, out.path(), std::string("PNG encoding failed: ") + state.message);
  }
}

}  // namespace lookback::io
