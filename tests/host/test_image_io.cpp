// Tests of the image readers and writers: PNG (grey, RGB, palette, 1- to 16-bit) and PGM (P5 8- and
// 16-bit, P2) round trips and the refusals, each naming the file. Files are built by hand
// (support/image_bytes.hpp) and live in a private temporary directory.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "io/array.hpp"
#include "io/atomic_file.hpp"
#include "io/io_error.hpp"
#include "io/pgm.hpp"
#include "io/png.hpp"
#include "support/image_bytes.hpp"
#include "support/run_seed.hpp"

namespace fs = std::filesystem;
using namespace lookback::io;
using namespace lookback_test_images;

namespace {

class ImageIo : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "lookback-test-image-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path put(const std::string& name, const std::string& bytes) const {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return p;
  }

  template <class Write>
  fs::path written(const std::string& name, Write&& write) const {
    atomic_output_file out(dir_ / name);
    write(out);
    out.commit();
    return dir_ / name;
  }

  /// The reader's error for `bytes` saved as `name`: kind and one-line message.
  template <class Read>
  void expect_refused(Read&& read, const std::string& name, const std::string& bytes, error_kind kind,
                      const std::string& fragment) const {
    const fs::path p = put(name, bytes);
    try {
      (void)read(p);
      ADD_FAILURE() << name << ": read without an error";
    } catch (const io_error& e) {
      EXPECT_EQ(e.kind(), kind) << e.what();
      EXPECT_EQ(std::string(e.what()).rfind(p.string() + ": ", 0), 0u) << e.what();
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << "expected \"" << fragment << "\" in " << e.what();
    }
  }

  fs::path dir_;
};

template <class T>
host_array image_of(std::vector<std::int64_t> shape, const std::vector<T>& samples) {
  host_array a{dtype_of<T>(), std::move(shape), std::vector<std::byte>(samples.size() * sizeof(T))};
  std::memcpy(a.bytes.data(), samples.data(), a.bytes.size());
  return a;
}

template <class T>
std::vector<T> samples_of(const host_array& a) {
  std::vector<T> v(a.bytes.size() / sizeof(T));
  std::memcpy(v.data(), a.bytes.data(), a.bytes.size());
  return v;
}

// --- round trips -----------------------------------------------------------------------

TEST_F(ImageIo, PngRoundTripsGreyRgbAnd16Bit) {
  const host_array grey = image_of<std::uint8_t>({2, 3}, {0, 1, 2, 253, 254, 255});
  const host_array rgb = image_of<std::uint8_t>({2, 2, 3}, {255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30});
  const host_array wide = image_of<std::uint16_t>({1, 3}, {0, 258, 65535});
  const host_array wide_rgb = image_of<std::uint16_t>({1, 1, 3}, {1, 256, 65534});
  for (const host_array* a : {&grey, &rgb, &wide, &wide_rgb}) {
    const fs::path p = written("x.png", [&](atomic_output_file& out) { write_png(out, *a); });
    const host_array back = read_png(p);
    EXPECT_EQ(back.type, a->type);
    EXPECT_EQ(back.shape, a->shape);
    EXPECT_TRUE(back.bytes == a->bytes);
  }
}

TEST_F(ImageIo, PngWriterAndReaderTakeRowsPast2Pow24Pixels) {
  // libpng's default limit of a million pixels a side guards readers; here both sides take the
  // format's (the reader had refused past 2^24 what the writer wrote: "Invalid IHDR data").
  std::vector<std::uint8_t> samples((1 << 24) + 1);
  auto rng = lookback::test::make_rng(12345);  // incompressible, so the reader's guard against inflation stays quiet
  for (auto& x : samples) x = static_cast<std::uint8_t>(rng() >> 56);
  const host_array wide = image_of<std::uint8_t>({1, (1 << 24) + 1}, samples);
  const fs::path p = written("wide.png", [&](atomic_output_file& out) { write_png(out, wide); });
  const host_array back = read_png(p);
  EXPECT_EQ(back.shape, wide.shape);
  EXPECT_TRUE(back.bytes == wide.bytes);
}

TEST_F(ImageIo, PngWriterWritesWhatAnIndependentDecoderExpects) {
  // The signature and an IHDR for 3 x 2 8-bit grey, whatever libpng chooses for the rest.
  const fs::path p = written("x.png", [&](atomic_output_file& out) {
    write_png(out, image_of<std::uint8_t>({2, 3}, {1, 2, 3, 4, 5, 6}));
  });
  std::ifstream f(p, std::ios::binary);
  const std::string bytes(std::istreambuf_iterator<char>(f), {});
  EXPECT_EQ(bytes.substr(0, 8), png_signature());
  EXPECT_EQ(bytes.substr(8, 8 + 17), png_ihdr(3, 2, 8, 0).substr(0, 8 + 17));
}

TEST_F(ImageIo, PngReaderExpandsPaletteAndLowBitGrey) {
  const std::string palette("\x0a\x14\x1e\xff\x00\x80", 6);  // (10, 20, 30), (255, 0, 128)
  const host_array expanded = read_png(put("p.png", png_bytes(3, 8, 3, {std::string("\x00\x01\x01", 3)}, palette)));
  EXPECT_EQ(expanded.shape, (std::vector<std::int64_t>{1, 3, 3}));
  EXPECT_EQ(samples_of<std::uint8_t>(expanded), (std::vector<std::uint8_t>{10, 20, 30, 255, 0, 128, 255, 0, 128}));
  // Palette transparency is dropped: still RGB.
  const host_array with_trns =
      read_png(put("t.png", png_bytes(1, 8, 3, {std::string(1, '\0')}, palette, png_chunk("tRNS", std::string(1, '\0')))));
  EXPECT_EQ(with_trns.shape, (std::vector<std::int64_t>{1, 1, 3}));
  // 1-bit grey 1 0 1 1 scales to 8 bits: 255 0 255 255.
  const host_array bits = read_png(put("b.png", png_bytes(4, 1, 0, {std::string(1, '\xb0')})));
  EXPECT_EQ(bits.type, dtype::uint8);
  EXPECT_EQ(samples_of<std::uint8_t>(bits), (std::vector<std::uint8_t>{255, 0, 255, 255}));
  // 16-bit samples are big-endian in the file.
  const host_array wide = read_png(put("w.png", png_bytes(2, 16, 0, {std::string("\x01\x02\xff\xfe", 4)})));
  EXPECT_EQ(samples_of<std::uint16_t>(wide), (std::vector<std::uint16_t>{0x0102, 0xfffe}));
}

// The guard against lying headers weighs the rows as the file stores them: a palette image of one
// colour deflates about 1000 to 1 and expands three times on the way to RGB.
TEST_F(ImageIo, PngReaderTakesLargeImagesThatDeflateWell) {
  const std::vector<std::string> rows(2000, std::string(2000, '\0'));
  const host_array image = read_png(put("flat.png", png_bytes(2000, 8, 3, rows, std::string("\x10\x20\x30", 3))));
  EXPECT_EQ(image.shape, (std::vector<std::int64_t>{2000, 2000, 3}));
  const auto samples = samples_of<std::uint8_t>(image);
  EXPECT_EQ(samples[0], 0x10);
  EXPECT_EQ(samples[samples.size() - 1], 0x30);
}

TEST_F(ImageIo, PgmRoundTrips8And16BitAndReadsPlainP2) {
  const host_array narrow = image_of<std::uint8_t>({2, 2}, {0, 7, 128, 255});
  const host_array wide = image_of<std::uint16_t>({1, 3}, {0, 300, 65535});
  for (const host_array* a : {&narrow, &wide}) {
    const fs::path p = written("x.pgm", [&](atomic_output_file& out) { write_pgm(out, *a); });
    const host_array back = read_pgm(p);
    EXPECT_EQ(back.type, a->type);
    EXPECT_EQ(back.shape, a->shape);
    EXPECT_TRUE(back.bytes == a->bytes);
  }
  std::ifstream f(dir_ / "x.pgm", std::ios::binary);
  const std::string bytes(std::istreambuf_iterator<char>(f), {});
  EXPECT_EQ(bytes, std::string("P5\n3 1\n65535\n\x00\x00\x01\x2c\xff\xff", 19));  // big-endian samples

  const host_array plain = read_pgm(put("p.pgm", "P2\n# a comment\n3 2\n# another\n1000\n0 1 2\n999 1000 7\n"));
  EXPECT_EQ(plain.type, dtype::uint16);
  EXPECT_EQ(plain.shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(samples_of<std::uint16_t>(plain), (std::vector<std::uint16_t>{0, 1, 2, 999, 1000, 7}));
  const host_array comment = read_pgm(put("c.pgm", "P5 2#c\n 1 15\n\x03\x0f"));
  EXPECT_EQ(samples_of<std::uint8_t>(comment), (std::vector<std::uint8_t>{3, 15}));  // kept, not rescaled
  // A comment after maxval: its newline is its own, and one more whitespace delimits the raster.
  const host_array after_maxval = read_pgm(put("m.pgm", "P5\n3 1\n255#c\n\nabc"));
  EXPECT_EQ(samples_of<std::uint8_t>(after_maxval), (std::vector<std::uint8_t>{'a', 'b', 'c'}));
}

// --- refusals ----------------------------------------------------------------------------

TEST_F(ImageIo, PngReaderRefusesWhatIsNotASupportedPng) {
  const std::string good = grey_png(2, {1, 2, 3, 4});
  const auto png = [](const fs::path& p) { return read_png(p); };
  expect_refused(png, "empty.png", "", error_kind::data_error, "not a PNG file (bad signature)");
  EXPECT_THROW(read_png(dir_ / "nothing-here.png"), io_error);
  expect_refused(png, "sig.png", "GIF89a" + good.substr(6), error_kind::data_error, "not a PNG file (bad signature)");
  expect_refused(png, "cut.png", good.substr(0, good.size() / 2), error_kind::data_error, "not a valid PNG: ");
  expect_refused(png, "header_only.png", good.substr(0, 8 + 25), error_kind::data_error, "truncated file");
  std::string bad_crc = good;
  bad_crc[8 + 8 + 4] ^= 1;  // a bit of IHDR's width
  expect_refused(png, "crc.png", bad_crc, error_kind::data_error, "not a valid PNG: ");
  expect_refused(png, "rgba.png", png_bytes(1, 8, 6, {std::string(4, '\1')}), error_kind::data_error,
                 "RGBA PNG not supported (supported: grey, RGB and palette PNGs of up to 16 bits, without alpha)");
  expect_refused(png, "ga.png", png_bytes(1, 8, 4, {std::string(2, '\1')}), error_kind::data_error,
                 "grey + alpha PNG not supported");
  // A header claiming a huge image over a few bytes of data.
  expect_refused(png, "lying.png", png_signature() + png_ihdr(100000, 100000, 8, 0) + png_chunk("IDAT", deflate("")) +
                                       png_chunk("IEND", ""),
                 error_kind::data_error, "not a valid PNG: the header claims 100000 x 100000 pixels");
  // libpng would expand pixels past the palette to black without a word.
  expect_refused(png, "index.png", png_bytes(4, 8, 3, {std::string("\x00\x05\xc8\x00", 4)}, std::string("\x10\x20\x30", 3)),
                 error_kind::data_error, "not a valid PNG: pixel 1 indexes entry 5 past its palette of 1 entry");
  expect_refused(png, "zero.png", png_signature() + png_ihdr(0, 1, 8, 0) + png_chunk("IEND", ""), error_kind::data_error,
                 "not a valid PNG: ");
}

TEST_F(ImageIo, PgmReaderRefusesLyingHeadersAndOtherKinds) {
  const auto pgm = [](const fs::path& p) { return read_pgm(p); };
  expect_refused(pgm, "magic.pgm", "P9\n1 1\n255\n\x01", error_kind::data_error, "not a PGM file (bad magic)");
  expect_refused(pgm, "empty.pgm", "", error_kind::data_error, "not a PGM file (bad magic)");
  expect_refused(pgm, "ppm.pgm", "P6\n1 1\n255\nabc", error_kind::data_error,
                 "PPM colour (P6) images are not supported (supported: grey PGM, binary P5 or plain P2)");
  expect_refused(pgm, "pbm.pgm", "P4\n8 1\n\x01", error_kind::data_error, "PBM bitmap (P4) images are not supported");
  expect_refused(pgm, "short.pgm", pgm_bytes(4, 4, 255, "abc"), error_kind::data_error,
                 "truncated PGM: the header says 4 x 4 pixels (16 bytes at least), the file holds 3 after the header");
  expect_refused(pgm, "short16.pgm", pgm_bytes(2, 1, 65535, "abc"), error_kind::data_error, "truncated PGM");
  expect_refused(pgm, "long.pgm", pgm_bytes(1, 1, 255, "ab"), error_kind::data_error, "1 bytes of trailing data follow");
  expect_refused(pgm, "maxval.pgm", pgm_bytes(1, 1, 0, "a"), error_kind::data_error, "maxval 0 is not 1..65535");
  expect_refused(pgm, "maxval_big.pgm", pgm_bytes(1, 1, 70000, "ab"), error_kind::data_error, "maxval 70000 is not 1..65535");
  expect_refused(pgm, "above.pgm", pgm_bytes(2, 1, 100, std::string("\x05\x65", 2)), error_kind::data_error,
                 "sample 1 is 101, above maxval 100");
  expect_refused(pgm, "no_height.pgm", "P5\n12\n", error_kind::data_error, "expected the height in the header");
  expect_refused(pgm, "junk.pgm", "P5\n12x 3\n255\n", error_kind::data_error, "expected the width in the header");
  expect_refused(pgm, "huge.pgm", "P5\n99999999999 1\n255\n", error_kind::data_error, "expected the width");
  expect_refused(pgm, "wide.pgm", "P5\n4000000000 1\n255\n", error_kind::data_error, "is too large");
  expect_refused(pgm, "plain_short.pgm", "P2\n3 1\n255\n1 2", error_kind::data_error, "truncated PGM");
  expect_refused(pgm, "plain_bad.pgm", "P2\n3 1\n255\n1 x 2 3", error_kind::data_error, "sample 1 is missing or malformed (the header says 3 x 1 pixels)");
  expect_refused(pgm, "glued.pgm", "P53 1 255\nabc", error_kind::data_error, "no whitespace after the magic number P5");
  expect_refused(pgm, "comment_as_delimiter.pgm", "P5\n3 1\n255#c\nabc", error_kind::data_error,
                 "no whitespace after maxval");
  expect_refused(pgm, "plain_trailing.pgm", "P2\n1 1\n255\n1 2\n", error_kind::data_error, "trailing data");
}

}  // namespace
