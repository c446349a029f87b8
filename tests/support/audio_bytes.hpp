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

/// A RIFF WAVE file with a PCM (format tag 1) fmt chunk; `declared_data_bytes` is what the data chunk
/// header claims (by default the true size).
inline std::string wav_bytes(int channels, int rate, int bits, const std::string& data,
                             std::int64_t declared_data_bytes = -1) {
  const auto block = static_cast<std::uint32_t>(channels * bits / 8);
  const std::uint32_t declared =
      declared_data_bytes < 0 ? static_cast<std::uint32_t>(data.size()) : static_cast<std::uint32_t>(declared_data_bytes);
  std::string fmt = le(1, 2) + le(static_cast<std::uint32_t>(channels), 2) + le(static_cast<std::uint32_t>(rate), 4) +
                    le(static_cast<std::uint32_t>(rate) * block, 4) + le(block, 2) + le(static_cast<std::uint32_t>(bits), 2);
  std::string body = "WAVE" + std::string("fmt ") + le(16, 4) + fmt + "data" + le(declared, 4) + data;
  return "RIFF" + le(static_cast<std::uint32_t>(body.size()), 4) + body;
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
