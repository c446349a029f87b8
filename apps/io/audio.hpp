#pragma once
// WAV and FLAC audio through libsndfile, as interleaved float64 samples at full scale 1.0, a block of
// frames at a time so that files of any length stream through. Integer samples convert exactly both
// ways (s / 2^(bits-1) and back), which libsndfile's own double conversion does not do: it reads
// 16-bit samples over 32768 but writes them times 32767.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "io/atomic_file.hpp"

struct sf_private_tag;  // libsndfile's SNDFILE, kept out of the callers' includes

namespace lookback::io {

enum class audio_container { wav, wavex, flac };
enum class sample_format { pcm16, pcm24, pcm32, float32, float64 };

struct audio_format {
  audio_container container = audio_container::wav;
  sample_format sample = sample_format::pcm16;
  int sample_rate = 0;
  int channels = 0;
};

// libsndfile's spelling: "WAV", "WAVEX", "FLAC"; "PCM_16", "PCM_24", "PCM_32", "FLOAT", "DOUBLE".
std::string_view container_name(audio_container c);
std::string_view sample_format_name(sample_format s);
bool is_integer(sample_format s);
// FLAC holds 16- and 24-bit integers only; WAV holds every sample format.
bool container_holds(audio_container c, sample_format s);
// The most frames a file of `f` holds: a WAV's header states its sizes in 32 bits (4 GiB, less room
// for the header's other chunks); FLAC, past any count here.
std::int64_t max_frames(const audio_format& f);
// "cannot create: ..." when `frames` frames pass max_frames(f), else empty.
std::string too_long_problem(const audio_format& f, std::int64_t frames);

// Opens a WAV or FLAC file for reading. Throws io_error naming the file: no_input when it cannot be
// opened; data_error (with libsndfile's reason where it gives one) when it is not audio, is truncated,
// or holds another container or sample format.
class audio_reader {
 public:
  explicit audio_reader(const std::filesystem::path& p);
  ~audio_reader();
  audio_reader(const audio_reader&) = delete;
  audio_reader& operator=(const audio_reader&) = delete;

  const audio_format& format() const noexcept { return format_; }
  const std::filesystem::path& path() const noexcept { return path_; }
  // As the header declares it.
  std::int64_t frames() const noexcept { return frames_; }

  // Reads up to `max_frames` frames (max_frames * channels samples) into `out`; returns how many, 0
  // at the end. A file that ends before the frames its header declares throws io_error(data_error).
  std::int64_t read(double* out, std::int64_t max_frames);

 private:
  std::filesystem::path path_;
  sf_private_tag* file_ = nullptr;
  audio_format format_;
  std::int64_t frames_ = 0;
  std::int64_t frames_read_ = 0;
  std::vector<int> scratch_;
};

// Writes audio into an atomic output file's temporary; the caller commits it after close(). Integer
// formats round each sample to the nearest step and clamp it to full scale, counting every sample
// clamped (NaN included, written as 0); float formats keep every value. Errors throw io_error naming
// the output path.
class audio_writer {
 public:
  audio_writer(atomic_output_file& out, const audio_format& format);
  ~audio_writer();
  audio_writer(const audio_writer&) = delete;
  audio_writer& operator=(const audio_writer&) = delete;

  void write(const double* in, std::int64_t frames);
  // Finishes the file (sizes in the header, FLAC's last frame); call once, before committing.
  void close();
  std::int64_t clipped_samples() const noexcept { return clipped_; }

 private:
  std::filesystem::path path_;
  sf_private_tag* file_ = nullptr;
  audio_format format_;
  std::int64_t clipped_ = 0;
  std::int64_t frames_ = 0;
  std::vector<int> scratch_;
};

}  // namespace lookback::io
