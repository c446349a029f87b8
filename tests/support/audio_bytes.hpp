#pragma once
// Audio files as bytes, for tests whose table rows are built before any directory exists: WAVs made
// by hand (so that their headers can say what a test wants, true or not), other formats through the
// command's own writer.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/atomic_file.hpp"
#include "io/audio.hpp"

namespace lookback_test_audio {

inline std::string le(std::uint32_t v, int bytes) {
  std::string s;
  for (int i = 0; i < bytes; ++i) s += static_cast<char>((v >> (8 * i)) & 0xff);
  return s;
}

inline std::string be(std::uint32_t v, int bytes) {
  std::string s = le(v, bytes);
  return std::string(s.rbegin(), s.rend());
}

/// A WAVE file's header fields: PCM (format tag 1) or IEEE float (3); RIFF (little-endian) or RIFX.
struct wav_layout {
  int format_tag = 1;
  bool big_endian = false;
};

/// A WAVE file; `declared_data_bytes` is what the data chunk header claims (by default the true size).
/// `data` goes in as given, so a RIFX file's samples are big-endian already.
inline std::string wav_bytes(int channels, int rate, int bits, const std::string& data,
                             std::int64_t declared_data_bytes = -1, wav_layout layout = {}) {
  const auto field = [&](std::uint32_t v, int bytes) { return layout.big_endian ? be(v, bytes) : le(v, bytes); };
  const auto block = static_cast<std::uint32_t>(channels * bits / 8);
  const std::uint32_t declared =
      declared_data_bytes < 0 ? static_cast<std::uint32_t>(data.size()) : static_cast<std::uint32_t>(declared_data_bytes);
  std::string fmt = field(static_cast<std::uint32_t>(layout.format_tag), 2) + field(static_cast<std::uint32_t>(channels), 2) +
                    field(static_cast<std::uint32_t>(rate), 4) + field(static_cast<std::uint32_t>(rate) * block, 4) +
                    field(block, 2) + field(static_cast<std::uint32_t>(bits), 2);
  std::string body = "WAVE" + std::string("fmt ") + field(16, 4) + fmt + "data" + field(declared, 4) + data;
  return (layout.big_endian ? "RIFX" : "RIFF") + field(static_cast<std::uint32_t>(body.size()), 4) + body;
}

/// 16-bit PCM, interleaved samples.
inline std::string pcm16_wav(int channels, int rate, const std::vector<std::int16_t>& samples) {
  std::string data;
  for (const std::int16_t s : samples) data += le(static_cast<std::uint16_t>(s), 2);
  return wav_bytes(channels, rate, 16, data);
}

/// The bytes of `samples` (interleaved, full scale 1.0) written in `format` by lookback's audio writer.
inline std::string encoded(const lookback::io::audio_format& format, const std::vector<double>& samples) {
  std::string pattern = (std::filesystem::temp_directory_path() / "lookback-test-audio-XXXXXX").string();
  const int fd = ::mkstemp(pattern.data());
  if (fd < 0) throw std::runtime_error("mkstemp failed");
  ::close(fd);
  const std::filesystem::path path = pattern;
  {
    lookback::io::atomic_output_file out(path);
    lookback::io::audio_writer writer(out, format);
    writer.write(samples.data(), static_cast<std::int64_t>(samples.size()) / format.channels);
    writer.close();
    out.commit();
  }
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  std::filesystem::remove(path);
  return bytes;
}

}  // namespace lookback_test_audio
