// The audio reader and writer: every supported container and sample format round trips exactly, a
// block at a time; integer output clips at full scale and counts it; broken files fail with the right
// error kind and a message naming the file.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "io/atomic_file.hpp"
#include "io/audio.hpp"
#include "io/io_error.hpp"
#include "support/audio_bytes.hpp"
#include "support/run_seed.hpp"

namespace {

namespace fs = std::filesystem;
using lookback::io::audio_container;
using lookback::io::audio_format;
using lookback::io::audio_reader;
using lookback::io::audio_writer;
using lookback::io::error_kind;
using lookback::io::io_error;
using lookback::io::sample_format;
using lookback_test_audio::encoded;

class AudioTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "lookback-test-audio-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path path(const std::string& name) const { return dir_ / name; }

  void write_bytes(const std::string& name, const std::string& bytes) const {
    std::ofstream(path(name), std::ios::binary) << bytes;
  }

  // Writes in uneven blocks; returns the writer's clip count.
  std::int64_t write(const std::string& name, const audio_format& format, const std::vector<double>& samples) const {
    lookback::io::atomic_output_file out(path(name));
    audio_writer writer(out, format);
    const std::int64_t frames = static_cast<std::int64_t>(samples.size()) / format.channels;
    for (std::int64_t at = 0; at < frames;) {
      const std::int64_t n = std::min<std::int64_t>(frames - at, 1 + at % 97);
      writer.write(samples.data() + at * format.channels, n);
      at += n;
    }
    writer.close();
    out.commit();
    return writer.clipped_samples();
  }

  // Reads in blocks of 13 frames.
  std::vector<double> read(const std::string& name, audio_format& format, std::int64_t& declared_frames) const {
    audio_reader in(path(name));
    format = in.format();
    declared_frames = in.frames();
    std::vector<double> all, block(13 * static_cast<std::size_t>(format.channels));
    for (std::int64_t n; (n = in.read(block.data(), 13)) > 0;)
      all.insert(all.end(), block.begin(), block.begin() + n * format.channels);
    return all;
  }

  fs::path dir_;
};

int bits_of(sample_format s) {
  return s == sample_format::pcm16 ? 16 : s == sample_format::pcm24 ? 24 : 32;
}

// Samples the format holds exactly, the extremes included; floats also past full scale, which they keep.
std::vector<double> exact_samples(sample_format s, std::size_t count, unsigned seed) {
  auto rng = lookback::test::make_rng(seed);
  std::vector<double> v(count);
  if (lookback::io::is_integer(s)) {
    const std::int64_t top = std::int64_t{1} << (bits_of(s) - 1);
    std::uniform_int_distribution<std::int64_t> step(-top, top - 1);
    for (double& x : v) x = std::ldexp(static_cast<double>(step(rng)), -(bits_of(s) - 1));
    v[0] = -1.0;
    v[1] = std::ldexp(static_cast<double>(top - 1), -(bits_of(s) - 1));
  } else {
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    for (double& x : v) x = s == sample_format::float32 ? static_cast<float>(value(rng)) : value(rng);
    v[0] = 1.5;
    v[1] = -3.25;
  }
  return v;
}

struct round_trip_case {
  audio_container container;
  sample_format sample;
  int channels;
};

class AudioRoundTrip : public AudioTest, public ::testing::WithParamInterface<round_trip_case> {};

TEST_P(AudioRoundTrip, KeepsFormatAndEverySample) {
  const round_trip_case c = GetParam();
  const audio_format format{c.container, c.sample, c.container == audio_container::flac ? 48000 : 44100, c.channels};
  const std::size_t frames = 1000;
  const std::vector<double> samples = exact_samples(c.sample, frames * static_cast<std::size_t>(c.channels), 7);
  const std::string name = std::string("x") + (c.container == audio_container::flac ? ".flac" : ".wav");
  EXPECT_EQ(write(name, format, samples), 0);

  audio_format got;
  std::int64_t declared = 0;
  const std::vector<double> back = read(name, got, declared);
  EXPECT_EQ(got.container, format.container);
  EXPECT_EQ(got.sample, format.sample);
  EXPECT_EQ(got.sample_rate, format.sample_rate);
  EXPECT_EQ(got.channels, format.channels);
  EXPECT_EQ(declared, static_cast<std::int64_t>(frames));
  ASSERT_EQ(back.size(), samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i) ASSERT_EQ(back[i], samples[i]) << "sample " << i;
}

std::vector<round_trip_case> round_trip_cases() {
  std::vector<round_trip_case> cases;
  for (const int channels : {1, 2, 6}) {
    for (const sample_format s : {sample_format::pcm16, sample_format::pcm24, sample_format::pcm32,
                                  sample_format::float32, sample_format::float64})
      cases.push_back({audio_container::wav, s, channels});
    cases.push_back({audio_container::wavex, sample_format::pcm24, channels});
    cases.push_back({audio_container::flac, sample_format::pcm16, channels});
    cases.push_back({audio_container::flac, sample_format::pcm24, channels});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Formats, AudioRoundTrip, ::testing::ValuesIn(round_trip_cases()),
                         [](const ::testing::TestParamInfo<round_trip_case>& info) {
                           return std::string(lookback::io::container_name(info.param.container)) + "_" +
                                  std::string(lookback::io::sample_format_name(info.param.sample)) + "_" +
                                  std::to_string(info.param.channels) + "ch";
                         });

TEST_F(AudioTest, IntegerOutputRoundsClampsAndCountsClipping) {
  const double lsb = 1.0 / 32768;
  const std::vector<double> in{1.0,          -1.0,          1.5, -2.0, std::numeric_limits<double>::quiet_NaN(),
                               32767.4 * lsb, 32767.6 * lsb, 0.4 * lsb, -0.6 * lsb, -32768.4 * lsb};
  const audio_format format{audio_container::wav, sample_format::pcm16, 8000, 1};
  EXPECT_EQ(write("c.wav", format, in), 5);  // 1.0, 1.5, -2.0, NaN and 32767.6 steps do not fit
  audio_format got;
  std::int64_t declared = 0;
  const std::vector<double> back = read("c.wav", got, declared);
  const std::vector<double> expected{32767 * lsb, -1.0, 32767 * lsb, -1.0, 0.0, 32767 * lsb, 32767 * lsb, 0.0, -lsb, -1.0};
  EXPECT_EQ(back, expected);
}

TEST_F(AudioTest, ReadsAHandMadeWavByTheBook) {
  // Stereo 16-bit: frames (1, -2), (32767, -32768).
  write_bytes("h.wav", lookback_test_audio::pcm16_wav(2, 22050, {1, -2, 32767, -32768}));
  audio_format got;
  std::int64_t declared = 0;
  const std::vector<double> back = read("h.wav", got, declared);
  EXPECT_EQ(got.channels, 2);
  EXPECT_EQ(got.sample_rate, 22050);
  EXPECT_EQ(declared, 2);
  EXPECT_EQ(back, (std::vector<double>{1.0 / 32768, -2.0 / 32768, 32767.0 / 32768, -1.0}));
}

TEST_F(AudioTest, FlacHoldsIntegersOnly) {
  EXPECT_FALSE(lookback::io::container_holds(audio_container::flac, sample_format::float32));
  EXPECT_TRUE(lookback::io::container_holds(audio_container::wav, sample_format::float32));
  lookback::io::atomic_output_file out(path("f.flac"));
  try {
    audio_writer writer(out, {audio_container::flac, sample_format::float32, 44100, 1});
    FAIL() << "FLAC float was accepted";
  } catch (const io_error& e) {
    EXPECT_EQ(e.kind(), error_kind::cant_create);
    EXPECT_NE(std::string(e.what()).find("does not write FLAC FLOAT"), std::string::npos) << e.what();
  }
}

// Opening and reading it to the end must fail with `kind` and a message holding `fragment`.
void expect_read_fails(const fs::path& p, error_kind kind, const std::string& fragment) {
  try {
    audio_reader in(p);
    std::vector<double> block(4096 * static_cast<std::size_t>(in.format().channels));
    while (in.read(block.data(), 4096) > 0) {
    }
    FAIL() << p << " was read without an error";
  } catch (const io_error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    const std::string message = e.what();
    EXPECT_EQ(message.rfind(p.string() + ": ", 0), 0u) << message;
    EXPECT_NE(message.find(fragment), std::string::npos) << message;
  }
}

TEST_F(AudioTest, TruncatedWavIsADataError) {
  const std::string whole = lookback_test_audio::pcm16_wav(1, 8000, std::vector<std::int16_t>(500, 3));
  write_bytes("data_cut.wav", whole.substr(0, whole.size() - 100));
  expect_read_fails(path("data_cut.wav"), error_kind::data_error,
                    "truncated: the data chunk declares 1000 bytes, the file holds 900");
  write_bytes("header_cut.wav", whole.substr(0, 30));
  expect_read_fails(path("header_cut.wav"), error_kind::data_error, "not a readable audio file: ");
}

TEST_F(AudioTest, WavDataEndingPartwayThroughAFrameIsADataError) {
  // libsndfile would drop the partial frame and say so only in its log.
  write_bytes("odd_mono.wav", lookback_test_audio::wav_bytes(1, 8000, 16, std::string(201, '\1')));
  expect_read_fails(path("odd_mono.wav"), error_kind::data_error,
                    "the data chunk's 201 bytes end partway through a frame of 2 bytes");
  write_bytes("odd_stereo.wav", lookback_test_audio::wav_bytes(2, 8000, 16, std::string(198, '\1')));
  expect_read_fails(path("odd_stereo.wav"), error_kind::data_error,
                    "the data chunk's 198 bytes end partway through a frame of 4 bytes");
}

// Big-endian RIFX files, which libsndfile reads as WAV: the same checks of the data chunk's size.
TEST_F(AudioTest, RifxWavsAreCheckedAsRiffOnes) {
  const lookback_test_audio::wav_layout rifx{1, true};
  std::string data;
  for (int i = 0; i < 10; ++i) data += lookback_test_audio::be(static_cast<std::uint32_t>(i * 100), 2);
  write_bytes("x.wav", lookback_test_audio::wav_bytes(1, 8000, 16, data, -1, rifx));
  audio_format got;
  std::int64_t declared = 0;
  const std::vector<double> back = read("x.wav", got, declared);
  ASSERT_EQ(back.size(), 10u);
  EXPECT_EQ(back[9], 900.0 / 32768);
  write_bytes("cut.wav", lookback_test_audio::wav_bytes(1, 8000, 16, std::string(200, '\1'), 1000, rifx));
  expect_read_fails(path("cut.wav"), error_kind::data_error,
                    "truncated: the data chunk declares 1000 bytes, the file holds 200");
  write_bytes("odd.wav", lookback_test_audio::wav_bytes(2, 8000, 16, std::string(198, '\1'), -1, rifx));
  expect_read_fails(path("odd.wav"), error_kind::data_error,
                    "the data chunk's 198 bytes end partway through a frame of 4 bytes");
}

TEST_F(AudioTest, PartFramesOfDoublesAndOfStreamedDataAreDataErrors) {
  // A frame of two 64-bit floats is 16 bytes: 56 bytes hold three and a half.
  write_bytes("d.wav", lookback_test_audio::wav_bytes(2, 8000, 64, std::string(56, '\0'), -1, {3, false}));
  expect_read_fails(path("d.wav"), error_kind::data_error,
                    "the data chunk's 56 bytes end partway through a frame of 16 bytes");
  // Data of unknown size runs to the end of the file, which ends partway through a frame.
  write_bytes("s.wav", lookback_test_audio::wav_bytes(2, 8000, 16, std::string(10, '\1'), 0xFFFFFFFFu));
  expect_read_fails(path("s.wav"), error_kind::data_error,
                    "the data chunk's 10 bytes end partway through a frame of 4 bytes");
}

TEST_F(AudioTest, TruncatedFlacIsADataError) {
  std::vector<double> samples(20000);
  for (std::size_t i = 0; i < samples.size(); ++i) samples[i] = std::sin(0.01 * static_cast<double>(i * i % 7919)) * 0.5;
  const std::string whole = encoded({audio_container::flac, sample_format::pcm16, 44100, 1}, samples);
  write_bytes("cut.flac", whole.substr(0, whole.size() * 2 / 3));
  expect_read_fails(path("cut.flac"), error_kind::data_error, "truncated or corrupt: read ");
}

TEST_F(AudioTest, StreamedWavWithUnknownSizeReadsToTheEnd) {
  // Writers that cannot seek back declare 0xFFFFFFFF bytes of data.
  std::string data;
  for (int i = 0; i < 10; ++i) data += lookback_test_audio::le(static_cast<std::uint32_t>(i * 100), 2);
  write_bytes("s.wav", lookback_test_audio::wav_bytes(1, 8000, 16, data, 0xFFFFFFFFu));
  audio_format got;
  std::int64_t declared = 0;
  const std::vector<double> back = read("s.wav", got, declared);
  ASSERT_EQ(back.size(), 10u);
  EXPECT_EQ(back[9], 900.0 / 32768);
}

TEST_F(AudioTest, EmptyDataChunkBeforeSamplesIsADataErrorAndBeforeMetadataIsEmpty) {
  // A recorder stopped before it wrote the size: 0 bytes declared, samples after. libsndfile would read
  // no frame, and the file would come out empty.
  write_bytes("z.wav", lookback_test_audio::wav_bytes(1, 8000, 16, std::string(20, '\1'), 0));
  expect_read_fails(path("z.wav"), error_kind::data_error,
                    "the data chunk declares 0 bytes (to the end of the file, where its 20 bytes hold 10 frames) but "
                    "reads as 0 frames: rewrite the header with the data's size");
  // No samples, then a LIST chunk: an empty file with metadata.
  write_bytes("e.wav", lookback_test_audio::wav_bytes(1, 8000, 16, "LIST" + lookback_test_audio::le(4, 4) + "INFO", 0));
  audio_format got;
  std::int64_t declared = -1;
  EXPECT_TRUE(read("e.wav", got, declared).empty());
  EXPECT_EQ(declared, 0);
}

TEST_F(AudioTest, TextAndUnsupportedFilesAreDataErrors) {
  write_bytes("notes.wav", "these are not samples\n");
  expect_read_fails(path("notes.wav"), error_kind::data_error, "not a readable audio file: ");
  write_bytes("empty.wav", "");
  expect_read_fails(path("empty.wav"), error_kind::data_error, "not a readable audio file: ");
  write_bytes("u8.wav", lookback_test_audio::wav_bytes(1, 8000, 8, std::string(16, '\x80')));
  expect_read_fails(path("u8.wav"), error_kind::data_error, "unsupported sample format");
}

TEST_F(AudioTest, MissingFileOrDirectoryIsNoInput) {
  expect_read_fails(path("missing.wav"), error_kind::no_input, "cannot open");
  fs::create_directory(path("d.wav"));
  expect_read_fails(path("d.wav"), error_kind::no_input, "cannot open: is a directory");
}

}  // namespace
