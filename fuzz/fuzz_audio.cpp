// libFuzzer target: the audio reader (WAV, FLAC, whatever libsndfile recognises) on arbitrary bytes,
// read to the end. Every outcome but clean samples or an io_error (a crash, a hang, a sanitizer
// report, another exception, an integer sample past full scale) is a bug.
#include <vector>

#include "fuzz_file.hpp"
#include "io/audio.hpp"
#include "io/io_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const lookback::fuzz::scratch_file file(data, size, ".wav");
  try {
    lookback::io::audio_reader in(file.path());
    const lookback::io::audio_format format = in.format();
    if (format.channels < 1 || format.sample_rate < 1) __builtin_trap();
    std::vector<double> block(256 * static_cast<std::size_t>(format.channels));
    for (std::int64_t n; (n = in.read(block.data(), 256)) > 0;) {
      if (n > 256) __builtin_trap();
      if (!lookback::io::is_integer(format.sample)) continue;
      for (std::int64_t i = 0; i < n * format.channels; ++i)
        if (!(block[static_cast<std::size_t>(i)] >= -1.0 && block[static_cast<std::size_t>(i)] < 1.0)) __builtin_trap();
    }
  } catch (const lookback::io::io_error&) {
  }
  return 0;
}
