// `lookback fir` as a user meets it, on the CPU backend: designed filters and --taps files filter as
// scipy.signal.lfilter does, the output keeps the input's channels, rate and format (or is float with
// --format float), clipping is counted, block size never changes the result, and every refusal is one
// line with its exit code, leaving the folder as it was.
#include <gtest/gtest.h>

#include <lookback/primitives/cpu/convolution.hpp>

#include <cmath>
#include <cstring>

#include "io/audio.hpp"
#include "support/audio_bytes.hpp"
#include "support/cli_harness.hpp"
#include "typed/fir_design.hpp"

namespace {

using namespace lookback_test_cli;
using lookback::io::audio_container;
using lookback::io::audio_format;
using lookback::io::sample_format;
using lookback_test_audio::encoded;
using lookback_test_audio::pcm16_wav;

struct audio {
  audio_format format;
  std::vector<double> samples;  // interleaved
};

audio read_audio(const fs::path& p) {
  lookback::io::audio_reader in(p);
  audio a{in.format(), std::vector<double>(static_cast<std::size_t>(in.frames() * in.format().channels))};
  EXPECT_EQ(in.read(a.samples.data(), in.frames()), in.frames());
  return a;
}

// Even samples, so that halving sums of two stays exact.
std::vector<std::int16_t> mono_steps(std::size_t n) {
  std::vector<std::int16_t> s(n);
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<std::int16_t>(static_cast<int>(i * 1238 % 20000) - 10000);
  return s;
}

const std::string mono_wav = pcm16_wav(1, 8000, mono_steps(400));

std::vector<double> test_signal(std::size_t frames, int channels) {
  std::vector<double> x(frames * static_cast<std::size_t>(channels));
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double t = static_cast<double>(i / static_cast<std::size_t>(channels));
    x[i] = std::round((0.3 * std::sin(0.05 * t * (1 + i % static_cast<std::size_t>(channels))) + 0.2 * std::sin(1.3 * t)) *
                      32768) / 32768;
  }
  return x;
}

/// Each channel through `taps`, in double: what the command computes before writing.
std::vector<double> reference(const std::vector<double>& taps, const std::vector<double>& x, int channels) {
  std::vector<double> y(x.size());
  const std::size_t frames = x.size() / static_cast<std::size_t>(channels);
  for (int c = 0; c < channels; ++c) {
    std::vector<double> in(frames), out(frames);
    for (std::size_t i = 0; i < frames; ++i) in[i] = x[i * static_cast<std::size_t>(channels) + static_cast<std::size_t>(c)];
    lookback::cpu::fir_filter(in.data(), out.data(), static_cast<std::int64_t>(frames), taps.data(), static_cast<int>(taps.size()));
    for (std::size_t i = 0; i < frames; ++i) y[i * static_cast<std::size_t>(channels) + static_cast<std::size_t>(c)] = out[i];
  }
  return y;
}

void expect_within_half_a_step(const std::vector<double>& got, const std::vector<double>& want, int bits) {
  ASSERT_EQ(got.size(), want.size());
  const double half_step = std::ldexp(0.5, -(bits - 1));
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_LE(std::abs(got[i] - want[i]), half_step * (1 + 1e-9)) << "sample " << i;
}

class CliFir : public CliTest {};

TEST_F(CliFir, TapsFileFiltersAsLfilter) {
  write_file(path("in.wav"), mono_wav);
  write_input("avg.npy", array_of(std::vector<double>{0.5, 0.5}));
  const run_result r = run_ok({"fir", "-i", arg("in.wav"), "-o", arg("out.wav"), "--taps", arg("avg.npy")});
  EXPECT_EQ(r.out, "fir 2 taps from " + arg("avg.npy") + ": " + arg("in.wav") +
                       " (WAV PCM_16, 1 channel, 8000 Hz, 400 frames) -> " + arg("out.wav") +
                       " (WAV PCM_16)\nclipped 0 of 400 samples at full scale\n");
  const audio out = read_audio(path("out.wav"));
  const std::vector<std::int16_t> s = mono_steps(400);
  ASSERT_EQ(out.samples.size(), s.size());
  for (std::size_t n = 0; n < s.size(); ++n)
    ASSERT_EQ(out.samples[n] * 32768, (s[n] + (n > 0 ? s[n - 1] : 0)) / 2) << "sample " << n;

  // float32 taps read the same.
  write_input("avg32.npy", array_of(std::vector<float>{0.5f, 0.5f}));
  run_ok({"fir", "-i", arg("in.wav"), "-o", arg("out32.wav"), "--taps", arg("avg32.npy")});
  EXPECT_EQ(read_file(path("out32.wav")), read_file(path("out.wav")));
}

TEST_F(CliFir, DesignedFiltersMatchTheReference) {
  const audio_format format{audio_container::wav, sample_format::pcm16, 44100, 2};
  const std::vector<double> x = test_signal(3000, 2);
  write_file(path("in.wav"), encoded(format, x));
  const double nyquist = 22050;
  struct design {
    std::vector<std::string> args;
    lookback::typed::fir_band band;
    int taps;
    lookback::typed::window_spec window;
    std::string description;
  };
  const std::vector<design> designs{
      {{"--lowpass", "2000"}, {0, 2000 / nyquist}, 101, {}, "lowpass 2000 Hz, 101 taps, hamming window"},
      {{"--highpass", "5000", "--num-taps", "51", "--window", "blackman"}, {5000 / nyquist, 1}, 51,
       {lookback::typed::window_kind::blackman}, "highpass 5000 Hz, 51 taps, blackman window"},
      {{"--bandpass", "300:3400", "--window", "kaiser:5"}, {300 / nyquist, 3400 / nyquist}, 101,
       {lookback::typed::window_kind::kaiser, 5.0}, "bandpass 300-3400 Hz, 101 taps, kaiser (beta 5) window"},
      {{"--bandpass", "300:3400", "--num-taps", "64"}, {300 / nyquist, 3400 / nyquist}, 64, {},
       "bandpass 300-3400 Hz, 64 taps, hamming window"},
      {{"--lowpass", "1000.5", "--num-taps", "20", "--window", "kaiser"}, {0, 1000.5 / nyquist}, 20,
       {lookback::typed::window_kind::kaiser, 8.6}, "lowpass 1000.5 Hz, 20 taps, kaiser (beta 8.6) window"},
  };
  for (const design& d : designs) {
    SCOPED_TRACE(d.description);
    std::vector<std::string> args{"fir", "-i", arg("in.wav"), "-o", arg("out.wav")};
    args.insert(args.end(), d.args.begin(), d.args.end());
    const run_result r = run_ok(args);
    EXPECT_EQ(r.out.rfind("fir " + d.description + ": ", 0), 0u) << r;
    const audio out = read_audio(path("out.wav"));
    EXPECT_EQ(out.format.channels, 2);
    const std::vector<double> taps = lookback::typed::design_fir(d.band, d.taps, d.window);
    expect_within_half_a_step(out.samples, reference(taps, x, 2), 16);
  }
}

// The GPU backend: the direct kernel (63 taps) and overlap-save (301), blocks shorter than the taps,
// a block longer than the first (the plan rebuilt) and a shorter last one, each with --verify.
TEST_F(CliFir, GpuBackendFiltersAsTheReferenceAndVerifies) {
  if (!gpu_present()) GTEST_SKIP() << "no CUDA device";
  const audio_format format{audio_container::wav, sample_format::float32, 44100, 2};
  const std::vector<double> x = test_signal(20011, 2);
  write_file(path("in.wav"), encoded(format, x));
  for (const int taps : {63, 301}) {
    const std::vector<double> want =
        reference(lookback::typed::design_fir({0, 3000 / 22050.0}, taps, {}), x, 2);
    for (const std::string block : {"50", "4096", "1048576"}) {
      SCOPED_TRACE(std::to_string(taps) + " taps, blocks of " + block);
      write_file(path("out.wav"), "old");
      const run_result r = run_ok({"fir", "--backend", "gpu", "-i", arg("in.wav"), "-o", arg("out.wav"), "--lowpass",
                                   "3000", "--num-taps", std::to_string(taps), "--block-frames", block, "--verify"});
      EXPECT_TRUE(contains(r.out, "outputs match")) << r;
      const audio out = read_audio(path("out.wav"));
      ASSERT_EQ(out.samples.size(), want.size());
      for (std::size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(out.samples[i], want[i], 1e-5) << "sample " << i;
    }
  }
}

TEST_F(CliFir, KeepsChannelsRateAndFormat) {
  const std::vector<audio_format> formats{
      {audio_container::wav, sample_format::pcm24, 48000, 6},   {audio_container::wav, sample_format::pcm32, 8000, 1},
      {audio_container::wav, sample_format::float32, 96000, 2}, {audio_container::wav, sample_format::float64, 22050, 1},
      {audio_container::flac, sample_format::pcm16, 44100, 2},  {audio_container::flac, sample_format::pcm24, 32000, 6},
      {audio_container::wavex, sample_format::pcm16, 16000, 4},
  };
  for (const audio_format& f : formats) {
    const std::string kind =
        std::string(lookback::io::container_name(f.container)) + " " + std::string(lookback::io::sample_format_name(f.sample));
    SCOPED_TRACE(kind);
    const std::string ext = f.container == audio_container::flac ? ".flac" : ".wav";
    const std::vector<double> x = test_signal(500, f.channels);
    write_file(path("in" + ext), encoded(f, x));
    const run_result r = run_ok({"fir", "-i", arg("in" + ext), "-o", arg("out" + ext), "--lowpass", "1000", "--num-taps", "15"});
    EXPECT_TRUE(contains(r.out, "-> " + arg("out" + ext) + " (" + kind + ")\n")) << r;
    EXPECT_EQ(contains(r.out, "clipped 0 of " + std::to_string(500 * f.channels) + " samples"), lookback::io::is_integer(f.sample)) << r;
    const audio out = read_audio(path("out" + ext));
    EXPECT_EQ(out.format.container, f.container);
    EXPECT_EQ(out.format.sample, f.sample);
    EXPECT_EQ(out.format.sample_rate, f.sample_rate);
    EXPECT_EQ(out.format.channels, f.channels);
    const std::vector<double> taps = lookback::typed::design_fir({0, 1000 / (f.sample_rate / 2.0)}, 15, {});
    const std::vector<double> want = reference(taps, x, f.channels);
    if (lookback::io::is_integer(f.sample)) {
      expect_within_half_a_step(out.samples, want, f.sample == sample_format::pcm16 ? 16 : f.sample == sample_format::pcm24 ? 24 : 32);
    } else {
      ASSERT_EQ(out.samples.size(), want.size());
      for (std::size_t i = 0; i < want.size(); ++i)
        ASSERT_EQ(out.samples[i], f.sample == sample_format::float32 ? static_cast<float>(want[i]) : want[i]) << i;
    }
  }
}

TEST_F(CliFir, FormatFloatKeepsWhatIntegersWouldClip) {
  write_file(path("in.wav"), mono_wav);
  write_input("double.npy", array_of(std::vector<double>{2.0}));
  const run_result r =
      run_ok({"fir", "-i", arg("in.wav"), "-o", arg("out.wav"), "--taps", arg("double.npy"), "--format", "float"});
  EXPECT_TRUE(contains(r.out, "-> " + arg("out.wav") + " (WAV FLOAT)\n")) << r;
  EXPECT_FALSE(contains(r.out, "clipped")) << r;
  const audio out = read_audio(path("out.wav"));
  EXPECT_EQ(out.format.sample, sample_format::float32);
  EXPECT_EQ(out.format.sample_rate, 8000);
  const std::vector<std::int16_t> s = mono_steps(400);
  for (std::size_t n = 0; n < s.size(); ++n) ASSERT_EQ(out.samples[n], 2.0 * s[n] / 32768) << "sample " << n;
}

TEST_F(CliFir, ClippingIsCountedAndReported) {
  write_file(path("in.wav"), pcm16_wav(2, 8000, {20000, 10000, -20000, -10000, 16383, -16384, 16384, 0}));
  write_input("double.npy", array_of(std::vector<double>{2.0}));
  const run_result r = run_ok({"fir", "-i", arg("in.wav"), "-o", arg("out.wav"), "--taps", arg("double.npy")});
  // 2 * 20000, 2 * -20000 and 2 * 16384 do not fit 16 bits; 2 * -16384 is exactly full scale.
  EXPECT_TRUE(contains(r.out, "\nclipped 3 of 8 samples at full scale\n")) << r;
  const audio out = read_audio(path("out.wav"));
  EXPECT_EQ(out.samples, (std::vector<double>{32767.0 / 32768, 20000.0 / 32768, -1.0, -20000.0 / 32768, 32766.0 / 32768,
                                              -1.0, 32767.0 / 32768, 0.0}));
}

TEST_F(CliFir, BlockSizeNeverChangesTheOutput) {
  const audio_format format{audio_container::flac, sample_format::pcm24, 44100, 2};
  write_file(path("in.flac"), encoded(format, test_signal(5000, 2)));
  run_ok({"fir", "-i", arg("in.flac"), "-o", arg("one.flac"), "--bandpass", "500:5000", "--num-taps", "63"});
  // Hundreds of blocks, some shorter than the 62 carried samples; stderr is no terminal, so no progress bar.
  for (const std::string block : {"7", "62", "1000"}) {
    run_ok({"fir", "-i", arg("in.flac"), "-o", arg("blocks.flac"), "--bandpass", "500:5000", "--num-taps", "63",
            "--block-frames", block});
    EXPECT_EQ(read_audio(path("blocks.flac")).samples, read_audio(path("one.flac")).samples) << block;
  }
}

// Blocks are no longer than the file: one frame of 64 channels once took 2^20 frames' buffers (1.3 GB).
TEST_F(CliFir, AShortFileOfManyChannelsTakesLittleMemory) {
  write_file(path("in.wav"), pcm16_wav(64, 8000, std::vector<std::int16_t>(64, 1000)));
  const auto [code, peak_kib] = run_measured(
      {"fir", "--backend", "cpu", "-i", arg("in.wav"), "-o", arg("out.wav"), "--lowpass", "1000"}, dir_, 0);
  EXPECT_EQ(code, ex_ok);
  EXPECT_LT(peak_kib, 200 * 1024) << "peak resident set " << peak_kib << " KiB";
  EXPECT_EQ(read_audio(path("out.wav")).samples.size(), 64u);
}

TEST_F(CliFir, ReplacesAnExistingOutput) {
  write_file(path("in.wav"), mono_wav);
  write_file(path("out.wav"), "old contents");
  run_ok({"fir", "-i", arg("in.wav"), "-o", arg("out.wav"), "--lowpass", "1000"});
  EXPECT_EQ(read_audio(path("out.wav")).samples.size(), 400u);
  EXPECT_EQ(names_of(snapshot(dir_)), (std::set<std::string>{"in.wav", "out.wav"}));
}

TEST_F(CliFir, DemoFiltersEverySampleRecording) {
  if (*sample_data_dir == '\0') GTEST_SKIP() << "LOOKBACK_DATA_DIR is not defined";
  std::vector<fs::path> recordings;
  for (const auto& e : fs::directory_iterator(sample_data_dir))
    if (e.path().extension() == ".wav") recordings.push_back(e.path());
  ASSERT_EQ(recordings.size(), 2u) << "the sample set changed; update this test";
  const run_result r = run_ok({"demo", "--data-dir", sample_data_dir, "--output-dir", arg("demo")});
  for (const fs::path& recording : recordings) {
    SCOPED_TRACE(recording.filename().string());
    const fs::path out = path("demo/" + recording.stem().string() + ".lowpass_1khz.wav");
    EXPECT_TRUE(contains(r.out, "fir lowpass 1000 Hz, 101 taps, hamming window -> " + out.string() + "; clipped 0 of ")) << r;
    const audio in = read_audio(recording), filtered = read_audio(out);
    EXPECT_EQ(filtered.format.sample_rate, in.format.sample_rate);
    EXPECT_EQ(filtered.format.channels, in.format.channels);
    EXPECT_EQ(filtered.format.sample, sample_format::pcm16);
    const std::vector<double> taps = lookback::typed::design_fir({0, 1000 / (in.format.sample_rate / 2.0)}, 101, {});
    expect_within_half_a_step(filtered.samples, reference(taps, in.samples, in.format.channels), 16);
  }
}

// --- bad input: one table, every row checked the same way ----------------------------------------

const file_spec valid_wav = file("in.wav", mono_wav);
const file_spec existing_output = file("out.wav", "an older output, which a failed run must leave alone");

/// A valid AIFF recording (4 frames of 16-bit mono at 8000 Hz): audio libsndfile reads, in a container
/// other than WAV or FLAC. Big-endian chunks; the rate is an 80-bit extended float.
std::string aiff_bytes() {
  const auto be32 = [](std::uint32_t v) {
    return std::string{static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
  };
  const std::string comm = std::string("\0\1", 2) + be32(4) + std::string("\0\x10", 2) +
                           std::string("\x40\x0b\xfa\0\0\0\0\0\0\0", 10);
  const std::string ssnd = be32(0) + be32(0) + std::string(8, '\1');
  const std::string body = "AIFF" + ("COMM" + be32(static_cast<std::uint32_t>(comm.size())) + comm) +
                           ("SSND" + be32(static_cast<std::uint32_t>(ssnd.size())) + ssnd);
  return "FORM" + be32(static_cast<std::uint32_t>(body.size())) + body;
}

std::vector<bad_run> bad_runs() {
  std::vector<bad_run> rows;
  // Each row runs once with no output file yet and once over an existing one.
  // -i {tmp}/in.wav and -o {tmp}/out.wav unless the row names its own.
  const auto add = [&](const std::string& name, std::vector<std::string> args, std::vector<file_spec> files, int code,
                       const std::string& message) {
    std::vector<std::string> with_io;
    if (std::find(args.begin(), args.end(), "-i") == args.end()) with_io = {"-i", "{tmp}/in.wav"};
    const auto o = std::find(args.begin(), args.end(), "-o");
    const std::string output = o != args.end() && o + 1 != args.end() ? *(o + 1) : "{tmp}/out.wav";
    if (o == args.end()) with_io.insert(with_io.end(), {"-o", output});
    args.insert(args.begin(), with_io.begin(), with_io.end());
    rows.push_back({"fir_" + name, "fir", args, files, code, message});
    files.push_back(file(output.substr(std::string("{tmp}/").size()), existing_output.contents.value()));
    rows.push_back({"fir_" + name + "_over_existing_output", "fir", args, files, code, message});
  };
  const auto lowpass = std::vector<std::string>{"--lowpass", "1000"};
  const auto with_lowpass = [&](std::vector<std::string> args) {
    args.insert(args.end(), lowpass.begin(), lowpass.end());
    return args;
  };
  const auto input = [](std::string contents) { return std::vector<file_spec>{file("in.wav", std::move(contents))}; };

  // The input file.
  add("missing_input", with_lowpass({"-i", "{tmp}/missing.wav"}), {}, ex_noinput, "{tmp}/missing.wav: cannot open");
  add("input_is_directory", lowpass, {directory("in.wav")}, ex_noinput, "{tmp}/in.wav: cannot open: is a directory");
  add("text_input", lowpass, input("hello, not audio\n"), ex_dataerr,
      "{tmp}/in.wav: not a readable audio file: Format not recognised");
  add("empty_input", lowpass, input(""), ex_dataerr, "{tmp}/in.wav: not a readable audio file: ");
  add("header_cut_short", lowpass, input(mono_wav.substr(0, 30)), ex_dataerr, "{tmp}/in.wav: not a readable audio file: ");
  add("data_cut_short", lowpass, input(mono_wav.substr(0, mono_wav.size() - 10)), ex_dataerr,
      "{tmp}/in.wav: truncated: the data chunk declares 800 bytes, the file holds 790");
  add("aiff_container", lowpass, input(aiff_bytes()), ex_dataerr, "{tmp}/in.wav: unsupported audio container ");
  add("eight_bit_samples", lowpass, input(lookback_test_audio::wav_bytes(1, 8000, 8, std::string(64, '\x80'))), ex_dataerr,
      "{tmp}/in.wav: unsupported sample format");
  // Float samples that are not numbers: refused, not spread over an FFT segment on the GPU.
  const auto float_wav = [](float bad) {
    std::string data;
    for (const float v : {0.25f, -0.5f, 0.0f, bad, 0.5f}) {
      std::uint32_t bits = 0;
      std::memcpy(&bits, &v, 4);
      data += lookback_test_audio::le(bits, 4);
    }
    return lookback_test_audio::wav_bytes(1, 8000, 32, data, -1, {3, false});
  };
  add("nan_sample", lowpass, input(float_wav(std::nanf(""))), ex_dataerr,
      "{tmp}/in.wav: sample 0 of frame 3 is NaN: the filter takes finite samples");
  add("infinite_sample", lowpass, input(float_wav(-HUGE_VALF)), ex_dataerr,
      "{tmp}/in.wav: sample 0 of frame 3 is infinite: the filter takes finite samples");
  // Samples after a data chunk that declares none: libsndfile would read an empty file.
  add("data_size_zero", lowpass, input(lookback_test_audio::wav_bytes(1, 8000, 16, std::string(800, '\1'), 0)),
      ex_dataerr, "{tmp}/in.wav: the data chunk declares 0 bytes (to the end of the file, where its 800 bytes hold 400 "
                  "frames) but reads as 0 frames");
  // A FLAC stream that breaks off fails while the output is half written: the temporary must go too.
  std::vector<double> noise(30000);
  for (std::size_t i = 0; i < noise.size(); ++i) noise[i] = std::sin(static_cast<double>(i * i % 7919)) * 0.5;
  const std::string flac = encoded({audio_container::flac, sample_format::pcm16, 44100, 1}, noise);
  add("flac_cut_short", with_lowpass({"-i", "{tmp}/in.flac", "-o", "{tmp}/out.flac", "--block-frames", "1024"}),
      {file("in.flac", flac.substr(0, flac.size() * 2 / 3))}, ex_dataerr, "{tmp}/in.flac: truncated or corrupt: read ");

  // Choosing the filter.
  add("no_filter", {}, {valid_wav}, ex_usage,
      "no filter given: give --taps T.npy, --lowpass HZ, --highpass HZ or --bandpass LO:HI");
  add("two_filters", {"--lowpass", "1000", "--highpass", "2000"}, {valid_wav}, ex_usage,
      "give one filter, not both --lowpass and --highpass");
  add("taps_and_design", {"--taps", "{tmp}/t.npy", "--bandpass", "1:2"}, {valid_wav}, ex_usage,
      "give one filter, not both --taps and --bandpass");
  add("num_taps_with_taps_file", {"--taps", "{tmp}/t.npy", "--num-taps", "11"}, {valid_wav}, ex_usage,
      "--num-taps and --window shape a designed filter; --taps gives its own");

  // Cutoffs, against the input's 8000 Hz.
  add("lowpass_zero", {"--lowpass", "0"}, {valid_wav}, ex_usage, "--lowpass must be above 0 Hz, not 0 Hz");
  add("lowpass_negative", {"--lowpass=-50"}, {valid_wav}, ex_usage, "--lowpass must be above 0 Hz, not -50 Hz");
  add("lowpass_nan", {"--lowpass", "nan"}, {valid_wav}, ex_usage, "--lowpass must be above 0 Hz, not nan Hz");
  add("lowpass_at_nyquist", {"--lowpass", "4000"}, {valid_wav}, ex_usage,
      "--lowpass 4000 Hz is not below the Nyquist frequency 4000 Hz of {tmp}/in.wav (sampled at 8000 Hz)");
  add("highpass_above_nyquist", {"--highpass", "6000"}, {valid_wav}, ex_usage,
      "--highpass 6000 Hz is not below the Nyquist frequency 4000 Hz");
  add("lowpass_not_a_number", {"--lowpass", "loud"}, {valid_wav}, ex_usage, "'--lowpass'");
  add("bandpass_reversed", {"--bandpass", "3000:300"}, {valid_wav}, ex_usage, "--bandpass needs LO < HI, not 3000:300");
  add("bandpass_empty", {"--bandpass", "300:300"}, {valid_wav}, ex_usage, "--bandpass needs LO < HI, not 300:300");
  add("bandpass_malformed", {"--bandpass", "300-3000"}, {valid_wav}, ex_usage,
      "--bandpass must be LO:HI in Hz, not '300-3000'");
  add("bandpass_trailing_text", {"--bandpass", "300:3000:1"}, {valid_wav}, ex_usage,
      "--bandpass must be LO:HI in Hz, not '300:3000:1'");
  add("bandpass_low_zero", {"--bandpass", "0:3000"}, {valid_wav}, ex_usage, "--bandpass LO must be above 0 Hz, not 0 Hz");
  add("bandpass_high_at_nyquist", {"--bandpass", "300:4000"}, {valid_wav}, ex_usage,
      "--bandpass HI 4000 Hz is not below the Nyquist frequency 4000 Hz");

  // Designs.
  add("zero_taps", with_lowpass({"--num-taps", "0"}), {valid_wav}, ex_usage, "--num-taps must be between 1 and 1048576, not 0");
  add("negative_taps", with_lowpass({"--num-taps=-3"}), {valid_wav}, ex_usage, "--num-taps must be between 1 and 1048576, not -3");
  add("too_many_taps", with_lowpass({"--num-taps", "2000000"}), {valid_wav}, ex_usage,
      "--num-taps must be between 1 and 1048576, not 2000000");
  add("even_highpass", {"--highpass", "1000", "--num-taps", "100"}, {valid_wav}, ex_usage,
      "--num-taps must be odd for a highpass filter");
  add("unknown_window", with_lowpass({"--window", "hann"}), {valid_wav}, ex_usage,
      "--window must be hamming, blackman, kaiser or kaiser:BETA, not 'hann'");
  add("bad_kaiser_beta", with_lowpass({"--window", "kaiser:loud"}), {valid_wav}, ex_usage,
      "--window kaiser:loud: the kaiser beta must be a number from 0 to 100");
  add("kaiser_beta_with_a_space", with_lowpass({"--window", "kaiser: 5"}), {valid_wav}, ex_usage,
      "--window kaiser: 5: the kaiser beta must be a number from 0 to 100");
  add("negative_kaiser_beta", with_lowpass({"--window", "kaiser:-2"}), {valid_wav}, ex_usage,
      "--window kaiser:-2: the kaiser beta must be a number from 0 to 100");
  add("kaiser_beta_above_100", with_lowpass({"--window", "kaiser:101"}), {valid_wav}, ex_usage,
      "--window kaiser:101: the kaiser beta must be a number from 0 to 100");
  add("highpass_zero", {"--highpass", "0"}, {valid_wav}, ex_usage, "--highpass must be above 0 Hz, not 0 Hz");

  // Taps files.
  const auto taps = [&](const std::string& name, std::string contents, int code, const std::string& message) {
    add(name, {"--taps", "{tmp}/t.npy"}, {valid_wav, file("t.npy", std::move(contents))}, code, message);
  };
  add("missing_taps_file", {"--taps", "{tmp}/t.npy"}, {valid_wav}, ex_noinput, "{tmp}/t.npy: cannot open");
  taps("taps_not_npy", "0.5 0.5\n", ex_dataerr, "{tmp}/t.npy: not a .npy file");
  taps("empty_taps", npy_text(array_of(std::vector<double>{})), ex_dataerr, "{tmp}/t.npy: holds no taps (an empty array)");
  taps("two_dimensional_taps", npy_text(array_of(std::vector<double>{1, 2, 3, 4}, {2, 2})), ex_dataerr,
       "{tmp}/t.npy: taps must be a 1-D float32 or float64 array, not float64 (2, 2)");
  taps("integer_taps", npy_text(array_of(std::vector<std::int32_t>{1, 2, 3})), ex_dataerr,
       "{tmp}/t.npy: taps must be a 1-D float32 or float64 array, not int32 (3,)");
  taps("taps_truncated", npy_with_header(npy_dict("<f8", "(3,)"), std::string(16, '\0')), ex_dataerr,
       "{tmp}/t.npy: truncated data: header says 3 elements");
  taps("taps_big_endian", npy_with_header(npy_dict(">f8", "(3,)"), std::string(24, '\0')), ex_dataerr,
       "{tmp}/t.npy: big-endian dtype '>f8' not supported");
  taps("taps_fortran_order", npy_with_header(npy_dict("<f8", "(3, 2)", "True"), std::string(48, '\0')), ex_dataerr,
       "{tmp}/t.npy: Fortran-order");
  taps("nan_tap", npy_text(array_of(std::vector<float>{0.5f, std::nanf("")})), ex_dataerr, "{tmp}/t.npy: tap 1 is not finite");

  // Outputs.
  const auto output = [&](const std::string& name, const std::string& out, std::vector<file_spec> files, int code,
                          const std::string& message) {
    files.push_back(valid_wav);
    rows.push_back({"fir_" + name, "fir", {"-i", "{tmp}/in.wav", "-o", out, "--lowpass", "1000"}, files, code, message});
  };
  output("output_is_input", "{tmp}/in.wav", {}, ex_cantcreat, "output path is the same file as input {tmp}/in.wav");
  output("output_is_input_spelled_differently", "{tmp}/./in.wav", {}, ex_cantcreat, "output path is the same file as input");
  output("output_in_missing_directory", "{tmp}/nowhere/out.wav", {}, ex_cantcreat,
         "{tmp}/nowhere/out.wav: cannot create: directory {tmp}/nowhere does not exist");
  output("output_is_directory", "{tmp}/outdir", {directory("outdir")}, ex_cantcreat, "{tmp}/outdir: cannot create: is a directory");
  rows.push_back({"fir_output_is_taps_file", "fir", {"-i", "{tmp}/in.wav", "-o", "{tmp}/t.npy", "--taps", "{tmp}/t.npy"},
                  {valid_wav, file("t.npy", npy_text(array_of(std::vector<double>{1.0})))}, ex_cantcreat,
                  "output path is the same file as input {tmp}/t.npy"});
  rows.push_back({"fir_missing_output_option", "fir", {"-i", "{tmp}/in.wav", "--lowpass", "1000"}, {valid_wav}, ex_usage,
                  "the option '--output' is required"});

  // Other options.
  add("format_not_float", with_lowpass({"--format", "pcm16"}), {valid_wav}, ex_usage,
      "--format must be float (without it the output keeps the input's), not 'pcm16'");
  const file_spec flac_input = file("in.flac", encoded({audio_container::flac, sample_format::pcm16, 8000, 1}, {0.25, -0.25}));
  add("format_float_for_flac", with_lowpass({"-i", "{tmp}/in.flac", "-o", "{tmp}/out.flac", "--format", "float"}),
      {flac_input}, ex_usage, "--format float: {tmp}/in.flac is FLAC, which holds integer samples only");
  // The output keeps the input's container; a name that says the other is refused.
  add("wav_name_for_flac", with_lowpass({"-i", "{tmp}/in.flac"}), {flac_input}, ex_usage,
      "{tmp}/out.wav: a .wav name for FLAC output (the output keeps {tmp}/in.flac's container)");
  add("flac_name_for_wav", with_lowpass({"-o", "{tmp}/out.FLAC"}), {valid_wav}, ex_usage,
      "{tmp}/out.FLAC: a .flac name for WAV output (the output keeps {tmp}/in.wav's container)");
  add("zero_block_frames", with_lowpass({"--block-frames", "0"}), {valid_wav}, ex_usage,
      "--block-frames must be between 1 and 16777216, not 0");
  add("too_many_block_frames", with_lowpass({"--block-frames", "16777217"}), {valid_wav}, ex_usage,
      "--block-frames must be between 1 and 16777216, not 16777217");
  add("dtype_for_audio", with_lowpass({"--dtype", "int32"}), {valid_wav}, ex_usage, "--dtype applies to raw arrays, not to audio");
  add("bogus_backend", with_lowpass({"--backend", "bogus"}), {valid_wav}, ex_usage,
      "--backend must be auto, gpu or cpu, not 'bogus'");
  add("unknown_option", with_lowpass({"--gain", "2"}), {valid_wav}, ex_usage, "unrecognised option '--gain'");
  return rows;
}

class CliFirBadInput : public CliBadInputTest {};

TEST_P(CliFirBadInput, FailsWithOneLineAndLeavesFilesAlone) { check_row_fails_cleanly(); }

INSTANTIATE_TEST_SUITE_P(Table, CliFirBadInput, ::testing::ValuesIn(bad_runs()),
                         [](const ::testing::TestParamInfo<bad_run>& row) { return row.param.name; });

}  // namespace
