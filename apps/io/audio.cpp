#include "io/audio.hpp"

#include <sndfile.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>

#include "io/io_error.hpp"

namespace fs = std::filesystem;

namespace lookback::io {
namespace {

constexpr const char* supported_samples = "16-, 24- or 32-bit integer or 32- or 64-bit float";

int sample_bits(sample_format s) {
  switch (s) {
    case sample_format::pcm16: return 16;
    case sample_format::pcm24: return 24;
    case sample_format::pcm32:
    case sample_format::float32: return 32;
    case sample_format::float64: return 64;
  }
  return 32;
}

int libsndfile_format(const audio_format& f) {
  const int major = f.container == audio_container::flac    ? SF_FORMAT_FLAC
                    : f.container == audio_container::wavex ? SF_FORMAT_WAVEX
                                                            : SF_FORMAT_WAV;
  switch (f.sample) {
    case sample_format::pcm16: return major | SF_FORMAT_PCM_16;
    case sample_format::pcm24: return major | SF_FORMAT_PCM_24;
    case sample_format::pcm32: return major | SF_FORMAT_PCM_32;
    case sample_format::float32: return major | SF_FORMAT_FLOAT;
    case sample_format::float64: return major | SF_FORMAT_DOUBLE;
  }
  return major;
}

// "AIFF (Apple/SGI)", "Unsigned 8 bit PCM": libsndfile's own description of a major or subtype format.
std::string libsndfile_name(int format) {
  SF_FORMAT_INFO info{};
  info.format = format;
  if (sf_command(nullptr, SFC_GET_FORMAT_INFO, &info, sizeof info) == 0 && info.name != nullptr) return info.name;
  char code[24];
  std::snprintf(code, sizeof code, "0x%x", static_cast<unsigned>(format));
  return code;
}

std::optional<audio_container> container_of(int format) {
  switch (format & SF_FORMAT_TYPEMASK) {
    case SF_FORMAT_WAV: return audio_container::wav;
    case SF_FORMAT_WAVEX: return audio_container::wavex;
    case SF_FORMAT_FLAC: return audio_container::flac;
    default: return std::nullopt;
  }
}

std::optional<sample_format> sample_of(int format) {
  switch (format & SF_FORMAT_SUBMASK) {
    case SF_FORMAT_PCM_16: return sample_format::pcm16;
    case SF_FORMAT_PCM_24: return sample_format::pcm24;
    case SF_FORMAT_PCM_32: return sample_format::pcm32;
    case SF_FORMAT_FLOAT: return sample_format::float32;
    case SF_FORMAT_DOUBLE: return sample_format::float64;
    default: return std::nullopt;
  }
}

/// A chunk size: little-endian in RIFF files, big-endian in RIFX ones.
std::uint32_t chunk_size(const unsigned char* p, bool big_endian) {
  const auto b = [&](int i) { return static_cast<std::uint32_t>(p[big_endian ? 3 - i : i]); };
  return b(0) | b(1) << 8 | b(2) << 16 | b(3) << 24;
}

std::string partial_frame(std::uint64_t bytes, std::uint64_t frame_bytes) {
  return "the data chunk's " + std::to_string(bytes) + " bytes end partway through a frame of " +
         std::to_string(frame_bytes) + " bytes";
}

/// Whether the chunks from `offset` on, each a printable id and a size, end where the file ends: what
/// follows an empty data chunk in a file with metadata after its samples.
bool chunks_reach_the_end(std::ifstream& f, std::uint64_t offset, std::uint64_t file_size, bool big_endian) {
  unsigned char header[8];
  while (offset + 8 <= file_size && f.seekg(static_cast<std::streamoff>(offset)) &&
         f.read(reinterpret_cast<char*>(header), 8)) {
    for (int i = 0; i < 4; ++i)
      if (header[i] < 0x20 || header[i] > 0x7e) return false;
    const std::uint32_t size = chunk_size(header + 4, big_endian);
    offset += 8 + std::uint64_t{size} + (size & 1u);
  }
  f.clear();
  // The last chunk's pad byte may be missing.
  return offset == file_size || offset == file_size + 1;
}

// libsndfile reads a WAV whose data chunk runs past the end of the file as a shorter one, and drops a
// last partial frame, saying so only in its log; so the chunk's declared size is checked here, in
// RIFF and RIFX files alike. Writers that stream without knowing the size declare 0 or 0xFFFFFFFF,
// meaning "to the end of the file". libsndfile reads some such files so, and others not: 0 only where
// the RIFF size is 8 as well, 0xFFFFFFFF only up to 4 GiB. So its `frames` must fill the rest of the
// file but a part of one (which is then the problem), or, for 0, the rest must be other chunks; a file
// read otherwise would come out short, and is refused.
std::optional<std::string> wav_data_problem(const fs::path& p, std::uint64_t frame_bytes, std::int64_t frames) {
  std::ifstream f(p, std::ios::binary);
  unsigned char header[12];
  if (!f.read(reinterpret_cast<char*>(header), 12)) return std::nullopt;
  const bool big_endian = std::memcmp(header, "RIFX", 4) == 0;
  if (!big_endian && std::memcmp(header, "RIFF", 4) != 0) return std::nullopt;
  std::error_code ec;
  const std::uint64_t file_size = fs::file_size(p, ec);
  if (ec) return std::nullopt;
  std::uint64_t offset = 12;
  while (f.seekg(static_cast<std::streamoff>(offset)) && f.read(reinterpret_cast<char*>(header), 8)) {
    const std::uint32_t size = chunk_size(header + 4, big_endian);
    offset += 8;
    if (std::memcmp(header, "data", 4) == 0) {
      if (size == 0 || size == 0xFFFFFFFFu) {
        const std::uint64_t rest = file_size > offset ? file_size - offset : 0;
        if (frame_bytes == 0 || frames < 0) return std::nullopt;
        const auto read = static_cast<std::uint64_t>(frames);
        if (read == rest / frame_bytes) return rest % frame_bytes != 0 ? std::optional(partial_frame(rest, frame_bytes)) : std::nullopt;
        if (size == 0 && read == 0 && chunks_reach_the_end(f, offset, file_size, big_endian)) return std::nullopt;
        return "the data chunk declares " + std::string(size == 0 ? "0 bytes" : "0xFFFFFFFF bytes") +
               " (to the end of the file, where its " + std::to_string(rest) + " bytes hold " +
               std::to_string(rest / frame_bytes) + " frames) but reads as " + std::to_string(read) + " frames" +
               (rest > 0xFFFFFFFFu ? ", as a WAV's 32-bit size allows" : "") +
               ": rewrite the header with the data's size";
      }
      if (offset + size > file_size)
        return "truncated: the data chunk declares " + std::to_string(size) + " bytes, the file holds " +
               std::to_string(file_size - offset);
      if (frame_bytes != 0 && size % frame_bytes != 0) return partial_frame(size, frame_bytes);
      return std::nullopt;
    }
    offset += std::uint64_t{size} + (size & 1u);  // chunks are padded to an even length
  }
  return std::nullopt;
}

}  // namespace

std::string_view container_name(audio_container c) {
  switch (c) {
    case audio_container::wav: return "WAV";
    case audio_container::wavex: return "WAVEX";
    case audio_container::flac: return "FLAC";
  }
  return "?";
}

std::string_view sample_format_name(sample_format s) {
  switch (s) {
    case sample_format::pcm16: return "PCM_16";
    case sample_format::pcm24: return "PCM_24";
    case sample_format::pcm32: return "PCM_32";
    case sample_format::float32: return "FLOAT";
    case sample_format::float64: return "DOUBLE";
  }
  return "?";
}

bool is_integer(sample_format s) {
  return s == sample_format::pcm16 || s == sample_format::pcm24 || s == sample_format::pcm32;
}

bool container_holds(audio_container c, sample_format s) {
  return c != audio_container::flac || s == sample_format::pcm16 || s == sample_format::pcm24;
}

std::int64_t max_frames(const audio_format& f) {
  if (f.container == audio_container::flac) return std::numeric_limits<std::int64_t>::max();
  // Beside the data: RIFF's form type, a format chunk of at most 48 bytes and libsndfile's PEAK chunk
  // for floats (8 bytes a channel), with room to spare.
  const std::uint64_t header_room = 4096 + 16 * static_cast<std::uint64_t>(f.channels);
  const std::uint64_t frame_bytes = static_cast<std::uint64_t>(f.channels) * (sample_bits(f.sample) / 8);
  return static_cast<std::int64_t>((0xFFFFFFFFull - header_room) / frame_bytes);
}

std::string too_long_problem(const audio_format& f, std::int64_t frames) {
  const std::int64_t most = max_frames(f);
  if (frames <= most) return {};
  return "cannot create: a " + std::string(container_name(f.container)) + " file's 32-bit sizes hold at most " +
         std::to_string(most) + " frames of " + std::to_string(f.channels) + "-channel " +
         std::string(sample_format_name(f.sample)) + ", not " + std::to_string(frames);
}

audio_reader::audio_reader(const fs::path& p) : path_(p) {
  (void)open_input(p);  // missing, a directory, unreadable: the array readers' messages
  SF_INFO info{};
  file_ = sf_open(p.c_str(), SFM_READ, &info);
  if (file_ == nullptr)
    throw io_error(error_kind::data_error, p, std::string("not a readable audio file: ") + sf_strerror(nullptr));
  const auto container = container_of(info.format);
  const auto sample = sample_of(info.format);
  std::string problem;
  if (!container)
    problem = "unsupported audio container " + libsndfile_name(info.format & SF_FORMAT_TYPEMASK) + " (WAV or FLAC only)";
  else if (!sample)
    problem = "unsupported sample format " + libsndfile_name(info.format & SF_FORMAT_SUBMASK) + " (" +
              supported_samples + " only)";
  else if (info.samplerate < 1)
    problem = "sample rate " + std::to_string(info.samplerate) + " Hz";
  else if (*container != audio_container::flac)
    problem = wav_data_problem(p, static_cast<std::uint64_t>(info.channels) * (sample_bits(*sample) / 8), info.frames)
                  .value_or("");
  if (!problem.empty()) {
    sf_close(file_);
    file_ = nullptr;
    throw io_error(error_kind::data_error, p, problem);
  }
  format_ = {*container, *sample, info.samplerate, info.channels};
  frames_ = info.frames;
}

audio_reader::~audio_reader() {
  if (file_ != nullptr) sf_close(file_);
}

std::int64_t audio_reader::read(double* out, std::int64_t max_frames) {
  const auto samples = static_cast<std::size_t>(max_frames) * static_cast<std::size_t>(format_.channels);
  sf_count_t got = 0;
  if (is_integer(format_.sample)) {
    // libsndfile hands every integer width over left-justified in 32 bits, so one scale serves them all.
    scratch_.resize(samples);
    got = sf_readf_int(file_, scratch_.data(), max_frames);
    for (std::size_t i = 0; i < static_cast<std::size_t>(got) * static_cast<std::size_t>(format_.channels); ++i)
      out[i] = std::ldexp(static_cast<double>(scratch_[i]), -31);
  } else {
    got = sf_readf_double(file_, out, max_frames);
  }
  frames_read_ += got;
  if (got < max_frames && frames_read_ < frames_) {
    std::string problem = "truncated or corrupt: read " + std::to_string(frames_read_) + " of the " +
                          std::to_string(frames_) + " frames its header declares";
    if (sf_error(file_) != SF_ERR_NO_ERROR) problem += std::string(" (") + sf_strerror(file_) + ")";
    throw io_error(error_kind::data_error, path_, problem);
  }
  return got;
}

audio_writer::audio_writer(atomic_output_file& out, const audio_format& format) : path_(out.path()), format_(format) {
  SF_INFO info{};
  info.samplerate = format.sample_rate;
  info.channels = format.channels;
  info.format = libsndfile_format(format);
  if (!container_holds(format.container, format.sample) || sf_format_check(&info) == 0)
    throw io_error(error_kind::cant_create, path_,
                   "cannot create: libsndfile does not write " + std::string(container_name(format.container)) + " " +
                       std::string(sample_format_name(format.sample)) + " audio with " + std::to_string(format.channels) +
                       " channels at " + std::to_string(format.sample_rate) + " Hz");
  // Into the temporary atomic_output_file made; its rename publishes the finished file.
  file_ = sf_open(out.temp_path().c_str(), SFM_WRITE, &info);
  if (file_ == nullptr) throw io_error(error_kind::cant_create, path_, std::string("cannot create: ") + sf_strerror(nullptr));
}

audio_writer::~audio_writer() {
  if (file_ != nullptr) sf_close(file_);
}

void audio_writer::write(const double* in, std::int64_t frames) {
  if (const std::string problem = too_long_problem(format_, frames_ + frames); !problem.empty())
    throw io_error(error_kind::cant_create, path_, problem);
  frames_ += frames;
  const auto samples = static_cast<std::size_t>(frames) * static_cast<std::size_t>(format_.channels);
  sf_count_t put = 0;
  if (is_integer(format_.sample)) {
    const int bits = sample_bits(format_.sample);
    const double top = std::ldexp(1.0, bits - 1);
    const std::int32_t justify = std::int32_t{1} << (32 - bits);  // libsndfile takes integers left-justified
    scratch_.resize(samples);
    for (std::size_t i = 0; i < samples; ++i) {
      const double step = std::nearbyint(in[i] * top);
      std::int32_t s = 0;
      if (step >= top) {
        s = static_cast<std::int32_t>(top - 1);
        ++clipped_;
      } else if (step < -top) {
        s = static_cast<std::int32_t>(-top);
        ++clipped_;
      } else if (std::isnan(step)) {
        ++clipped_;
      } else {
        s = static_cast<std::int32_t>(step);
      }
      scratch_[i] = s * justify;
    }
    put = sf_writef_int(file_, scratch_.data(), frames);
  } else {
    put = sf_writef_double(file_, in, frames);
  }
  if (put != frames) throw io_error(error_kind::io_failure, path_, std::string("write failed: ") + sf_strerror(file_));
}

void audio_writer::close() {
  const int err = sf_close(file_);
  file_ = nullptr;
  if (err != SF_ERR_NO_ERROR) throw io_error(error_kind::io_failure, path_, std::string("write failed: ") + sf_error_number(err));
}

}  // namespace lookback::io
