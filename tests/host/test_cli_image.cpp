// The image commands as a user meets them: conv2d, sat and boxfilter on .npy arrays, PNG and PGM
// images (CPU backend), and every refusal as a row of one bad-input table (one stderr line, the
// documented exit code, nothing created or changed).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "io/npy.hpp"
#include "io/pgm.hpp"
#include "io/png.hpp"
#include "support/cli_harness.hpp"
#include "support/image_bytes.hpp"
#include "support/run_seed.hpp"

namespace {

using namespace lookback_test_cli;
using namespace lookback_test_images;

const std::string grey_2x2 = grey_png(2, {10, 20, 30, 40});
const std::string float_npy = npy_text(array_of(std::vector<double>{1, 2, 3, 4, 5, 6}, {2, 3}));
const file_spec png_input = file("in.png", grey_2x2);
const file_spec npy_input = file("in.npy", float_npy);
const file_spec existing_png = file("out.png", grey_png(1, {99}));
const file_spec existing_table = file("sat.npy", npy_text(array_of(std::vector<double>{42.0})));

// --- bad input -----------------------------------------------------------------------------

class image_table {
 public:
  /// A problem with the input image, the same for all three commands.
  void all(const std::string& name, const std::string& input, const std::vector<file_spec>& files, int code,
           const std::string& message) {
    conv2d(name, {"-i", input, "--kernel", "box:3"}, files, code, message);
    boxfilter(name, {"-i", input, "--radius", "1"}, files, code, message);
    writing("sat", name, {"-i", input}, "{tmp}/sat.npy", existing_table, files, code, message);
  }

  /// conv2d writing out.png, once with no output yet and once over an existing one.
  void conv2d(const std::string& name, std::vector<std::string> args, const std::vector<file_spec>& files, int code,
              const std::string& message) {
    writing("conv2d", name, std::move(args), "{tmp}/out.png", existing_png, files, code, message);
  }

  void boxfilter(const std::string& name, std::vector<std::string> args, const std::vector<file_spec>& files, int code,
                 const std::string& message) {
    writing("boxfilter", name, std::move(args), "{tmp}/out.png", existing_png, files, code, message);
  }

  void add(bad_run row) { rows_.push_back(std::move(row)); }
  std::vector<bad_run> rows() && { return std::move(rows_); }

 private:
  /// The row once with no output yet and once over an existing one (`existing`, at `output`).
  void writing(const std::string& command, const std::string& name, std::vector<std::string> args,
               const std::string& output, const file_spec& existing, const std::vector<file_spec>& files, int code,
               const std::string& message) {
    args.insert(args.end(), {"-o", output});
    add({command + "_" + name, command, args, files, code, message});
    std::vector<file_spec> with_output = files;
    with_output.push_back(existing);
    add({command + "_" + name + "_over_existing_output", command, args, with_output, code, message});
  }

  std::vector<bad_run> rows_;
};

std::vector<bad_run> bad_runs() {
  image_table t;
  const auto in = [](const std::string& name, std::string contents) { return std::vector<file_spec>{file(name, std::move(contents))}; };

  // Input files that are missing, not images, or images of a kind we do not read.
  t.all("missing_input", "{tmp}/missing.png", {}, ex_noinput, "{tmp}/missing.png: cannot open");
  t.all("input_is_directory", "{tmp}/in.png", {directory("in.png")}, ex_noinput, "{tmp}/in.png: cannot open: is a directory");
  t.all("unknown_input_extension", "{tmp}/in.jpg", in("in.jpg", grey_2x2), ex_usage, "{tmp}/in.jpg: not a .npy, .png or .pgm file");
  t.all("bad_png_signature", "{tmp}/in.png", in("in.png", "GIF89a" + grey_2x2.substr(6)), ex_dataerr,
        "{tmp}/in.png: not a PNG file (bad signature)");
  t.all("pgm_in_png_clothing", "{tmp}/in.png", in("in.png", pgm_bytes(1, 1, 255, "a")), ex_dataerr, "{tmp}/in.png: not a PNG file");
  t.all("truncated_png", "{tmp}/in.png", in("in.png", grey_2x2.substr(0, grey_2x2.size() - 20)), ex_dataerr,
        "{tmp}/in.png: not a valid PNG: ");
  t.all("empty_png", "{tmp}/in.png", in("in.png", ""), ex_dataerr, "{tmp}/in.png: not a PNG file (bad signature)");
  t.all("rgba_png", "{tmp}/in.png", in("in.png", png_bytes(1, 8, 6, {std::string(4, '\1')})), ex_dataerr,
        "{tmp}/in.png: RGBA PNG not supported (supported: grey, RGB and palette PNGs of up to 16 bits, without alpha)");
  t.all("pgm_lying_header", "{tmp}/in.pgm", in("in.pgm", pgm_bytes(64, 64, 255, "abc")), ex_dataerr,
        "{tmp}/in.pgm: truncated PGM: the header says 64 x 64 pixels");
  t.all("pgm_trailing_data", "{tmp}/in.pgm", in("in.pgm", pgm_bytes(1, 1, 255, "abc")), ex_dataerr,
        "{tmp}/in.pgm: not a valid PGM: the header says 1 x 1 pixels");
  t.all("ppm_colour", "{tmp}/in.pgm", in("in.pgm", "P6\n1 1\n255\nabc"), ex_dataerr,
        "{tmp}/in.pgm: PPM colour (P6) images are not supported");
  t.all("zero_size_pgm", "{tmp}/in.pgm", in("in.pgm", pgm_bytes(0, 3, 255, "")), ex_dataerr, "{tmp}/in.pgm: image of zero size (3 x 0)");
  t.all("zero_size_npy", "{tmp}/in.npy", in("in.npy", npy_text(array_of(std::vector<float>{}, {0, 4}))), ex_dataerr,
        "{tmp}/in.npy: image of zero size (0 x 4)");
  t.all("one_dimensional_npy", "{tmp}/in.npy", in("in.npy", npy_text(array_of(std::vector<float>{1, 2}))), ex_dataerr,
        "{tmp}/in.npy: an image must be a 2-D array (height, width), not shape (2,)");
  t.all("bad_npy", "{tmp}/in.npy", in("in.npy", "\x93NUMPX"), ex_dataerr, "{tmp}/in.npy: not a .npy file");
  for (const npy_rejection& r : npy_rejections('f', {2, 2}))
    t.all("npy_" + r.name, "{tmp}/in.npy", in("in.npy", r.contents), ex_dataerr, "{tmp}/in.npy: " + r.message);
  t.all("bool_npy", "{tmp}/in.npy", in("in.npy", npy_with_header(npy_dict("|b1", "(1, 2)"), std::string("\1\0", 2))),
        ex_dataerr, "{tmp}/in.npy: dtype bool is not supported");
  const std::vector<file_spec> int_npy = in("in.npy", npy_text(array_of(std::vector<std::int32_t>{1, 2}, {1, 2})));
  t.conv2d("int32_npy", {"-i", "{tmp}/in.npy", "--kernel", "box:3"}, int_npy, ex_dataerr,
           "{tmp}/in.npy: dtype int32 is not supported (supported: float32, float64 arrays; 8- and 16-bit images)");
  t.boxfilter("int32_npy", {"-i", "{tmp}/in.npy", "--radius", "1"}, int_npy, ex_dataerr,
              "{tmp}/in.npy: dtype int32 is not supported");

  // Masks.
  const auto with_mask = [&](const std::string& name, const std::string& contents, int code, const std::string& message) {
    t.conv2d("mask_" + name, {"-i", "{tmp}/in.png", "--mask", "{tmp}/m.npy"}, {png_input, file("m.npy", contents)}, code,
             message);
  };
  with_mask("even", npy_text(array_of(std::vector<double>(6, 1.0), {2, 3})), ex_dataerr,
            "{tmp}/m.npy: the mask must have odd sides (it is centred on its middle tap), not 2 x 3");
  with_mask("even_width", npy_text(array_of(std::vector<double>(4, 1.0), {1, 4})), ex_dataerr, "not 1 x 4");
  with_mask("not_finite", npy_text(array_of(std::vector<double>{1, 1, 1, 1, std::nan(""), 1, 1, 1, 1}, {3, 3})), ex_dataerr,
            "{tmp}/m.npy: mask tap (1, 1) is not finite");
  // A PNG filters in float32, where 1e39 is infinite; a float64 array would take it.
  with_mask("past_float32", npy_text(array_of(std::vector<double>{1, 1, 1, 1e39, 1, 1, 1, 1, 1}, {3, 3})), ex_dataerr,
            "{tmp}/m.npy: mask tap (1, 0) is 1e+39, past float32, the type this image is filtered in");
  with_mask("empty", npy_text(array_of(std::vector<double>{}, {0, 3})), ex_dataerr, "{tmp}/m.npy: the mask is empty (0, 3)");
  with_mask("one_dimensional", npy_text(array_of(std::vector<double>{1, 2, 1})), ex_dataerr,
            "{tmp}/m.npy: the mask must be a 2-D array, not shape (3,)");
  with_mask("int32", npy_text(array_of(std::vector<std::int32_t>{1}, {1, 1})), ex_dataerr,
            "{tmp}/m.npy: mask dtype int32 is not supported (supported: float32, float64)");
  with_mask("not_npy", "hello", ex_dataerr, "{tmp}/m.npy: not a .npy file");
  with_mask("too_wide", npy_text(array_of(std::vector<float>(1025, 1.0f), {1, 1025})), ex_dataerr,
            "{tmp}/m.npy: the mask's sides must be at most 1023, not 1 x 1025");
  t.conv2d("mask_missing", {"-i", "{tmp}/in.png", "--mask", "{tmp}/nomask.npy"}, {png_input}, ex_noinput,
           "{tmp}/nomask.npy: cannot open");

  // Options.
  const auto conv = [&](const std::string& name, std::vector<std::string> options, int code, const std::string& message) {
    std::vector<std::string> args{"-i", "{tmp}/in.png"};
    args.insert(args.end(), options.begin(), options.end());
    t.conv2d(name, args, {png_input}, code, message);
  };
  conv("kernel_unknown", {"--kernel", "blur"}, ex_usage,
       "--kernel must be box:K | gaussian:K:SIGMA | sharpen | sobel-x | sobel-y, not 'blur'");
  conv("kernel_malformed", {"--kernel", "box:3x"}, ex_usage, "--kernel box:3x: K must be a whole number, not '3x'");
  conv("kernel_k_zero", {"--kernel", "box:0"}, ex_usage, "--kernel box:0: K must be at least 1, not 0");
  conv("kernel_k_negative", {"--kernel=box:-1"}, ex_usage, "--kernel box:-1: K must be at least 1, not -1");
  conv("kernel_k_even", {"--kernel", "box:4"}, ex_usage, "--kernel box:4: K must be odd");
  conv("kernel_gaussian_without_sigma", {"--kernel", "gaussian:5"}, ex_usage, "gaussian:K:SIGMA");
  conv("kernel_sigma_zero", {"--kernel", "gaussian:5:0"}, ex_usage, "--kernel gaussian:5:0: SIGMA must be greater than 0, not 0");
  conv("kernel_sigma_negative", {"--kernel=gaussian:5:-2"}, ex_usage, "SIGMA must be greater than 0, not -2");
  conv("kernel_sigma_nan", {"--kernel", "gaussian:5:nan"}, ex_usage, "SIGMA must be a number, not 'nan'");
  conv("neither_mask_nor_kernel", {}, ex_usage, "give one of --mask M.npy and --kernel");
  conv("both_mask_and_kernel", {"--kernel", "sharpen", "--mask", "{tmp}/in.npy"}, ex_usage, "give one of --mask M.npy and --kernel");
  conv("bad_border", {"--kernel", "sharpen", "--border", "wrap"}, ex_usage, "--border must be zero, clamp or mirror, not 'wrap'");
  conv("bad_backend", {"--kernel", "sharpen", "--backend", "tpu"}, ex_usage, "--backend must be auto, gpu or cpu, not 'tpu'");
  conv("dtype_given", {"--kernel", "sharpen", "--dtype", "float32"}, ex_usage, "--dtype applies to raw input");
  conv("unknown_option", {"--kernel", "sharpen", "--frobnicate"}, ex_usage, "unrecognised option '--frobnicate'");
  t.boxfilter("radius_negative", {"-i", "{tmp}/in.png", "--radius=-1"}, {png_input}, ex_usage,
              "--radius must be between 0 and 1073741823, not -1");
  t.boxfilter("radius_huge", {"-i", "{tmp}/in.png", "--radius", "2000000000"}, {png_input}, ex_usage,
              "--radius must be between 0 and 1073741823, not 2000000000");
  t.boxfilter("radius_not_a_number", {"-i", "{tmp}/in.png", "--radius", "two"}, {png_input}, ex_usage, "'--radius'");
  t.boxfilter("radius_missing", {"-i", "{tmp}/in.png"}, {png_input}, ex_usage, "the option '--radius' is required");

  // sat's accumulator and output.
  const auto sat = [&](const std::string& name, std::vector<std::string> args, std::vector<file_spec> files, int code,
                       const std::string& message) { t.add({"sat_" + name, "sat", std::move(args), std::move(files), code, message}); };
  sat("accumulator_unknown", {"-i", "{tmp}/in.png", "-o", "{tmp}/s.npy", "--accumulator", "int32"}, {png_input}, ex_usage,
      "--accumulator must be uint32, uint64, float or double, not 'int32'");
  sat("integer_accumulator_for_floats", {"-i", "{tmp}/in.npy", "-o", "{tmp}/s.npy", "--accumulator", "uint32"}, {npy_input},
      ex_usage, "{tmp}/in.npy: --accumulator uint32 sums integer pixels; float64 pixels need float32 or float64");
  sat("uint32_accumulator_for_uint64",
      {"-i", "{tmp}/in.npy", "-o", "{tmp}/s.npy", "--accumulator", "uint32"},
      in("in.npy", npy_text(array_of(std::vector<std::uint64_t>{1}, {1, 1}))), ex_usage,
      "--accumulator uint32 cannot hold uint64 pixels");
  sat("int8_npy", {"-i", "{tmp}/in.npy", "-o", "{tmp}/s.npy"}, in("in.npy", npy_text(array_of(std::vector<std::int8_t>{1}, {1, 1}))),
      ex_dataerr, "{tmp}/in.npy: dtype int8 is not supported (supported: uint8, uint16, uint32, uint64, float32, float64)");
  sat("png_output", {"-i", "{tmp}/in.png", "-o", "{tmp}/s.png"}, {png_input}, ex_usage, "{tmp}/s.png: the output must be a .npy file");
  sat("output_is_input", {"-i", "{tmp}/in.npy", "-o", "{tmp}/in.npy"}, {npy_input}, ex_cantcreat,
      "output path is the same file as input {tmp}/in.npy");

  // Output paths.
  for (const std::string command : {"conv2d", "boxfilter"}) {
    const std::vector<std::string> op = command == "conv2d" ? std::vector<std::string>{"--kernel", "box:3"}
                                                            : std::vector<std::string>{"--radius", "1"};
    const auto out = [&](const std::string& name, const std::string& input, const std::string& output,
                         std::vector<file_spec> files, int code, const std::string& message) {
      std::vector<std::string> args{"-i", input, "-o", output};
      args.insert(args.end(), op.begin(), op.end());
      t.add({command + "_" + name, command, args, std::move(files), code, message});
    };
    out("output_is_input", "{tmp}/in.png", "{tmp}/in.png", {png_input}, ex_cantcreat,
        "output path is the same file as input {tmp}/in.png");
    out("output_is_input_spelled_differently", "{tmp}/in.png", "{tmp}/./in.png", {png_input}, ex_cantcreat,
        "output path is the same file as input");
    out("output_in_missing_directory", "{tmp}/in.png", "{tmp}/nowhere/out.png", {png_input}, ex_cantcreat,
        "{tmp}/nowhere/out.png: cannot create: directory {tmp}/nowhere does not exist");
    out("output_is_directory", "{tmp}/in.png", "{tmp}/outdir.png", {png_input, directory("outdir.png")}, ex_cantcreat,
        "{tmp}/outdir.png: cannot create: is a directory");
    out("output_extension_jpg", "{tmp}/in.png", "{tmp}/out.jpg", {png_input}, ex_usage,
        "{tmp}/out.jpg: the output must be a .npy, .png or .pgm file");
    out("output_without_extension", "{tmp}/in.png", "{tmp}/out", {png_input}, ex_usage, "the output must be a .npy, .png or .pgm file");
    out("rgb_into_pgm", "{tmp}/in.png", "{tmp}/out.pgm",
        {file("in.png", png_bytes(1, 8, 2, {std::string("\1\2\3", 3)}))}, ex_usage,
        "{tmp}/out.pgm: a PGM holds grey images, and {tmp}/in.png is RGB (write .png or .npy)");
  }
  sat("output_in_missing_directory", {"-i", "{tmp}/in.npy", "-o", "{tmp}/nowhere/s.npy"}, {npy_input}, ex_cantcreat,
      "{tmp}/nowhere/s.npy: cannot create: directory {tmp}/nowhere does not exist");
  sat("output_is_directory", {"-i", "{tmp}/in.npy", "-o", "{tmp}/outdir.npy"}, {npy_input, directory("outdir.npy")},
      ex_cantcreat, "{tmp}/outdir.npy: cannot create: is a directory");
  t.add({"conv2d_output_is_mask", "conv2d", {"-i", "{tmp}/in.png", "--mask", "{tmp}/m.npy", "-o", "{tmp}/m.npy"},
         {png_input, file("m.npy", npy_text(array_of(std::vector<double>{1}, {1, 1})))}, ex_cantcreat,
         "output path is the same file as input {tmp}/m.npy"});
  return std::move(t).rows();
}

class CliImageBadInput : public CliBadInputTest {};

TEST_P(CliImageBadInput, FailsWithOneLineAndLeavesFilesAlone) { check_row_fails_cleanly(); }

INSTANTIATE_TEST_SUITE_P(Table, CliImageBadInput, ::testing::ValuesIn(bad_runs()),
                         [](const ::testing::TestParamInfo<bad_run>& row) { return row.param.name; });

// --- good runs -------------------------------------------------------------------------------

class CliImage : public CliTest {
 protected:
  lookback::io::host_array read_png(const std::string& name) const { return lookback::io::read_png(path(name)); }

  /// An RGB result's (height, width, 3) .npy, which the command's reader (1-D and 2-D only) refuses:
  /// checked against the header NumPy would write, then taken as elements.
  template <class T>
  std::vector<T> rgb_npy(const std::string& name, std::int64_t height, std::int64_t width) const {
    const std::string bytes = read_file(path(name));
    const std::string header = lookback::io::npy_header_for(lookback::io::dtype_of<T>(), {height, width, 3});
    EXPECT_EQ(bytes.substr(0, header.size()), header);
    std::vector<T> v((bytes.size() - std::min(bytes.size(), header.size())) / sizeof(T));
    std::memcpy(v.data(), bytes.data() + header.size(), v.size() * sizeof(T));
    return v;
  }
};

TEST_F(CliImage, Conv2dOfAnArrayIsTheCorrelationWithTheMask) {
  write_input("in.npy", array_of(std::vector<double>{1, 2, 3, 4, 5, 6}, {2, 3}));
  // A 1 x 3 mask (0, 0, 1) reads the right-hand neighbour: correlation, not flipped convolution.
  write_input("m.npy", array_of(std::vector<double>{0, 0, 1}, {1, 3}));
  const struct {
    std::string border;
    std::vector<double> expected;
  } cases[] = {{"zero", {2, 3, 0, 5, 6, 0}}, {"clamp", {2, 3, 3, 5, 6, 6}}, {"mirror", {2, 3, 2, 5, 6, 5}}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.border);
    const run_result r =
        run_ok({"conv2d", "-i", arg("in.npy"), "--mask", arg("m.npy"), "-o", arg("out.npy"), "--border", c.border});
    EXPECT_TRUE(contains(r.out, "2 x 3 float64 -> " + arg("out.npy") + " (float64)")) << r;
    const host_array out = read_output("out.npy");
    EXPECT_EQ(out.shape, (std::vector<std::int64_t>{2, 3}));
    EXPECT_EQ(elements<double>(out), c.expected);
  }
  // box:3 with zero borders: the mean of the window, ghosts counted as zeros.
  run_ok({"conv2d", "-i", arg("in.npy"), "--kernel", "box:3", "-o", arg("box.npy")});
  const std::vector<double> box = elements<double>(read_output("box.npy"));
  const double expected[] = {12 / 9.0, 21 / 9.0, 16 / 9.0, 12 / 9.0, 21 / 9.0, 16 / 9.0};
  for (std::size_t i = 0; i < box.size(); ++i) EXPECT_NEAR(box[i], expected[i], 1e-15) << i;
}

TEST_F(CliImage, Conv2dOfFloat32StaysFloat32) {
  write_input("in.npy", array_of(std::vector<float>{1, 2, 3, 4}, {2, 2}));
  run_ok({"conv2d", "-i", arg("in.npy"), "--kernel", "sharpen", "-o", arg("out.npy")});
  // Centre 5x minus the 4-neighbours (zeros outside).
  EXPECT_EQ(elements<float>(read_output("out.npy")), (std::vector<float>{5 - 2 - 3, 10 - 1 - 4, 15 - 1 - 4, 20 - 2 - 3}));
}

TEST_F(CliImage, Conv2dOfAPngRoundsClampsAndCountsTheClippedValues) {
  // A step from 0 to 200: sobel-x is +800 at the step (clipped to 255), -... nowhere, 0 elsewhere.
  write_file(path("in.png"), grey_png(4, {0, 0, 200, 200, 0, 0, 200, 200, 0, 0, 200, 200}));
  const run_result r = run_ok({"conv2d", "-i", arg("in.png"), "--kernel", "sobel-x", "-o", arg("out.png")});
  const host_array out = read_png("out.png");
  EXPECT_EQ(out.type, dtype::uint8);
  EXPECT_EQ(out.shape, (std::vector<std::int64_t>{3, 4}));
  // Columns 1 and 2 see the step; column 3's right-hand ghosts are zeros, so it sees a fall (negative, to 0).
  EXPECT_EQ(elements<std::uint8_t>(out), (std::vector<std::uint8_t>{0, 255, 255, 0, 0, 255, 255, 0, 0, 255, 255, 0}));
  EXPECT_TRUE(contains(r.out, "(float32 rounded to uint8, 9 of 12 values clipped to 0..255)")) << r;

  // A 1 x 1 mask of 0.5: every value halves and rounds to nearest (even values stay exact).
  write_input("half.npy", array_of(std::vector<float>{0.5f}, {1, 1}));
  run_ok({"conv2d", "-i", arg("in.png"), "--mask", arg("half.npy"), "-o", arg("half.pgm")});
  const host_array half = lookback::io::read_pgm(path("half.pgm"));
  EXPECT_EQ(elements<std::uint8_t>(half), (std::vector<std::uint8_t>{0, 0, 100, 100, 0, 0, 100, 100, 0, 0, 100, 100}));
}

TEST_F(CliImage, Conv2dFiltersEachChannelOfAnRgbPng) {
  write_file(path("in.png"), png_bytes(2, 8, 2, {std::string("\x0a\x14\x1e\x64\xc8\xff", 6)}));  // (10,20,30) (100,200,255)
  write_input("twice.npy", array_of(std::vector<double>{2.0}, {1, 1}));
  const run_result r = run_ok({"conv2d", "-i", arg("in.png"), "--mask", arg("twice.npy"), "-o", arg("out.png")});
  const host_array out = read_png("out.png");
  EXPECT_EQ(out.shape, (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(elements<std::uint8_t>(out), (std::vector<std::uint8_t>{20, 40, 60, 200, 255, 255}));
  EXPECT_TRUE(contains(r.out, "1 x 2 RGB uint8")) << r;
  EXPECT_TRUE(contains(r.out, "2 of 6 values clipped")) << r;
  // To .npy: the float values, (height, width, 3).
  run_ok({"conv2d", "-i", arg("in.png"), "--mask", arg("twice.npy"), "-o", arg("out.npy")});
  EXPECT_EQ(rgb_npy<float>("out.npy", 1, 2), (std::vector<float>{20, 40, 60, 200, 400, 510}));
}

TEST_F(CliImage, SixteenBitPgmStaysSixteenBit) {
  write_file(path("in.pgm"), std::string("P5\n2 1\n65535\n\x01\x00\xff\xf0", 17));  // 256, 65520
  write_input("twice.npy", array_of(std::vector<double>{2.0}, {1, 1}));
  run_ok({"conv2d", "-i", arg("in.pgm"), "--mask", arg("twice.npy"), "-o", arg("out.pgm")});
  const host_array out = lookback::io::read_pgm(path("out.pgm"));
  EXPECT_EQ(out.type, dtype::uint16);
  EXPECT_EQ(elements<std::uint16_t>(out), (std::vector<std::uint16_t>{512, 65535}));
}

TEST_F(CliImage, SatWritesTheTableInTheDefaultOrChosenAccumulator) {
  write_input("u8.npy", array_of(std::vector<std::uint8_t>{1, 2, 3, 4, 5, 6}, {2, 3}));
  const run_result r = run_ok({"sat", "-i", arg("u8.npy"), "-o", arg("s.npy")});
  EXPECT_TRUE(contains(r.out, "sat: 2 x 3 uint8 -> " + arg("s.npy") + " (uint64)")) << r;
  const host_array table = read_output("s.npy");
  EXPECT_EQ(table.shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(elements<std::uint64_t>(table), (std::vector<std::uint64_t>{1, 3, 6, 5, 12, 21}));
  run_ok({"sat", "-i", arg("u8.npy"), "-o", arg("s32.npy"), "--accumulator", "uint32"});
  EXPECT_EQ(elements<std::uint32_t>(read_output("s32.npy")), (std::vector<std::uint32_t>{1, 3, 6, 5, 12, 21}));
  run_ok({"sat", "-i", arg("u8.npy"), "-o", arg("sf.npy"), "--accumulator", "float"});
  EXPECT_EQ(elements<float>(read_output("sf.npy")), (std::vector<float>{1, 3, 6, 5, 12, 21}));

  write_input("f.npy", array_of(std::vector<float>{0.5f, 1.5f, -1.0f, 2.0f}, {2, 2}));
  run_ok({"sat", "-i", arg("f.npy"), "-o", arg("t.npy")});
  EXPECT_EQ(elements<double>(read_output("t.npy")), (std::vector<double>{0.5, 2.0, -0.5, 3.0}));

  // An RGB image: a table per channel, (height, width, 3).
  write_file(path("rgb.png"), png_bytes(2, 8, 2, {std::string("\x01\x02\x03\x04\x05\x06", 6)}));
  run_ok({"sat", "-i", arg("rgb.png"), "-o", arg("rgb.npy")});
  EXPECT_EQ(rgb_npy<std::uint64_t>("rgb.npy", 1, 2), (std::vector<std::uint64_t>{1, 2, 3, 5, 7, 9}));
}

TEST_F(CliImage, BoxfilterEqualsConv2dBoxWithZeroBorders) {
  if (*sample_data_dir == '\0') GTEST_SKIP() << "LOOKBACK_DATA_DIR is not defined";
  for (const std::string image : {"scene_grey.png", "scene_rgb.png"}) {
    const std::string in = (fs::path(sample_data_dir) / image).string();
    for (const int radius : {0, 1, 3}) {
      SCOPED_TRACE(image + " radius " + std::to_string(radius));
      const std::string k = std::to_string(2 * radius + 1);
      run_ok({"boxfilter", "-i", in, "--radius", std::to_string(radius), "-o", arg("box.png")});
      run_ok({"conv2d", "-i", in, "--kernel", "box:" + k, "--border", "zero", "-o", arg("conv.png")});
      EXPECT_EQ(read_png("box.png").bytes, read_png("conv.png").bytes);
      run_ok({"boxfilter", "-i", in, "--radius", std::to_string(radius), "-o", arg("box.npy")});
      run_ok({"conv2d", "-i", in, "--kernel", "box:" + k, "-o", arg("conv.npy")});
      const auto values = [&](const std::string& name) {
        return image == "scene_rgb.png" ? rgb_npy<float>(name, 120, 160) : elements<float>(read_output(name));
      };
      const std::vector<float> a = values("box.npy"), b = values("conv.npy");
      ASSERT_EQ(a.size(), b.size());
      for (std::size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-4f) << "value " << i;
    }
  }
  // float64 arrays, a radius past the image.
  write_input("x.npy", array_of(std::vector<double>{1.5, -2, 3.25, 4, 5, -6.5}, {3, 2}));
  for (const int radius : {1, 2, 9}) {
    run_ok({"boxfilter", "-i", arg("x.npy"), "--radius", std::to_string(radius), "-o", arg("box.npy")});
    run_ok({"conv2d", "-i", arg("x.npy"), "--kernel", "box:" + std::to_string(2 * radius + 1), "-o", arg("conv.npy")});
    const std::vector<double> a = elements<double>(read_output("box.npy")), b = elements<double>(read_output("conv.npy"));
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-14) << "radius " << radius << " value " << i;
  }
}

TEST_F(CliImage, ImagesPastTheLibrarysSideAreRefusedBeforeTheirDataIsRead) {
  // A sparse 512 MiB .npy one pixel wider than lookback::max_image_side: refused from its header, with
  // the file named, by the CPU backend too (the GPU's convolve2d had refused it as exit 70, unnamed).
  const std::string header = lookback::io::npy_header_for(dtype::uint8, {1, std::int64_t{1} << 29});
  write_file(path("wide.npy"), header);
  fs::resize_file(path("wide.npy"), header.size() + (std::uintmax_t{1} << 29));
  for (const std::string command : {"conv2d", "sat", "boxfilter"}) {
    std::vector<std::string> args{command, "-i", arg("wide.npy"), "-o", arg("out.npy")};
    if (command == "conv2d") args.insert(args.end(), {"--kernel", "box:3"});
    if (command == "boxfilter") args.insert(args.end(), {"--radius", "1"});
    const run_result r = run_cpu(args);
    EXPECT_EQ(r.exit_code, ex_dataerr) << r;
    expect_one_error_line(r, "", arg("wide.npy") + ": image of (1, 536870912) is too large (sides up to 536870911)");
    EXPECT_FALSE(fs::exists(path("out.npy")));
  }
}

/// Two float arrays of one shape, equal within 1e-4 of the larger magnitudes' scale (float32 sums of up to
/// 81 taps over 16-bit pixels round far below it; a stale or unwritten file is far outside it).
void expect_close_arrays(const host_array& want, const host_array& got) {
  ASSERT_EQ(want.type, got.type);
  ASSERT_EQ(want.shape, got.shape);
  const auto as_doubles = [](const host_array& a) {
    std::vector<double> v;
    if (a.type == lookback::io::dtype::float32)
      for (const float x : elements<float>(a)) v.push_back(x);
    else if (a.type == lookback::io::dtype::float64)
      v = elements<double>(a);
    else
      ADD_FAILURE() << "an output of dtype " << lookback::io::dtype_name(a.type) << ", where float was expected";
    return v;
  };
  const std::vector<double> w = as_doubles(want), g = as_doubles(got);
  ASSERT_EQ(w.size(), g.size());
  double scale = 1;
  for (const double x : w) scale = std::max(scale, std::fabs(x));
  for (std::size_t i = 0; i < w.size(); ++i)
    if (!(std::fabs(w[i] - g[i]) <= 1e-4 * scale)) {
      ADD_FAILURE() << "element " << i << ": CPU " << w[i] << ", GPU " << g[i] << " (scale " << scale << ")";
      return;
    }
}

// The image commands' GPU backend and --verify against the CPU backend, on the inputs each path takes
// (8-bit grey, 16-bit grey, 8-bit RGB, float32): sides that are not multiples of any tile, a mask
// wider than the blocked kernels take. Integer tables and box means of integer images are exact on
// both, so their files must be equal; the rest passes --verify's tolerance. Without a GPU, --verify is
// refused.
TEST_F(CliImage, TheGpuBackendAndVerifyAgreeWithTheCpuOnEveryInputKind) {
  const int height = 67, width = 301;
  auto rng = lookback::test::make_rng(2024);
  const auto next = [&] { return static_cast<std::uint32_t>(rng() >> 16); };
  std::vector<std::string> grey_rows, rgb_rows;
  std::string deep;
  std::vector<float> floats;
  for (int r = 0; r < height; ++r) {
    std::string grey, rgb;
    for (int c = 0; c < width; ++c) {
      grey += static_cast<char>(next() & 0xff);
      for (int k = 0; k < 3; ++k) rgb += static_cast<char>(next() & 0xff);
      const std::uint32_t v = next() & 0xffff;
      deep += static_cast<char>(v >> 8);
      deep += static_cast<char>(v & 0xff);
      floats.push_back(static_cast<float>(next() % 20001) / 100.0f - 100.0f);
    }
    grey_rows.push_back(grey);
    rgb_rows.push_back(rgb);
  }
  write_file(path("grey.png"), png_bytes(width, 8, 0, grey_rows));
  write_file(path("rgb.png"), png_bytes(width, 8, 2, rgb_rows));
  write_file(path("deep.pgm"), pgm_bytes(width, height, 65535, deep));
  write_input("floats.npy", array_of(floats, {height, width}));
  if (!gpu_present()) {
    const run_result r = run({"sat", "-i", arg("grey.png"), "-o", arg("t.npy"), "--verify"});
    EXPECT_EQ(r.exit_code, ex_unavailable) << r;
    EXPECT_FALSE(fs::exists(path("t.npy")));
    return;
  }
  struct command_case {
    std::vector<std::string> args;
    bool exact_on_integers;
  };
  const std::vector<command_case> commands{{{"conv2d", "--kernel", "gaussian:9:2", "--border", "mirror"}, false},
                                           {{"conv2d", "--kernel", "sobel-x", "--border", "clamp"}, false},
                                           {{"sat"}, true},
                                           {{"boxfilter", "--radius", "3"}, true}};
  for (const std::string input : {"grey.png", "rgb.png", "deep.pgm", "floats.npy"}) {
    for (const command_case& c : commands) {
      std::vector<std::string> args = c.args;
      args.insert(args.begin() + 1, {"-i", arg(input)});
      SCOPED_TRACE(::testing::PrintToString(args));
      std::vector<std::string> cpu = args, gpu = args;
      cpu.insert(cpu.end(), {"-o", arg("cpu.npy"), "--backend", "cpu"});
      gpu.insert(gpu.end(), {"-o", arg("gpu.npy"), "--backend", "gpu", "--verify"});
      // Different stale contents in each: a run that leaves its output unwritten cannot pass.
      write_file(path("cpu.npy"), "stale cpu");
      write_file(path("gpu.npy"), "stale gpu");
      const run_result on_cpu = run(cpu), on_gpu = run(gpu);
      ASSERT_EQ(on_cpu.exit_code, ex_ok) << on_cpu;
      ASSERT_EQ(on_gpu.exit_code, ex_ok) << on_gpu;
      EXPECT_TRUE(contains(on_gpu.out, "matches the CPU reference")) << on_gpu;
      if (c.exact_on_integers && input != "floats.npy")
        EXPECT_EQ(read_file(path("gpu.npy")), read_file(path("cpu.npy")));
      else
        expect_close_arrays(lookback::io::read_npy(path("cpu.npy")), lookback::io::read_npy(path("gpu.npy")));
    }
  }
}

TEST_F(CliImage, HelpListsTheOptions) {
  for (const std::string command : {"conv2d", "sat", "boxfilter"}) {
    const run_result r = run({command, "--help"});
    EXPECT_EQ(r.exit_code, ex_ok) << r;
    EXPECT_TRUE(contains(r.out, "usage: lookback " + command)) << r;
    EXPECT_TRUE(contains(r.out, "--backend")) << r;
  }
}

}  // namespace
