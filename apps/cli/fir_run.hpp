#pragma once
// Filtering an audio file through FIR taps on the chosen backend, block by block with the filter's
// state carried across blocks: shared by `lookback fir` and the demo.
#include "cli/common_options.hpp"
#include "io/audio.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace lookback::cli {

/// Without --block-frames, a block holds 2^20 samples: 2^20 frames of mono, fewer of many channels
/// (a block's buffers are frames x channels doubles).
inline std::int64_t default_block_frames(int channels) {
  return std::max<std::int64_t>(1, (std::int64_t{1} << 20) / std::max(channels, 1));
}
inline constexpr std::int64_t max_block_frames = std::int64_t{1} << 24;
/// --verify's allowance for the GPU's float result against the CPU's double one, at full scale 1.0.
inline constexpr double fir_verify_allowance = 1e-5;

struct fir_verification {
  double gpu_ms = 0;  // the GPU filter's kernels, CUDA events
  double cpu_ms = 0;  // the CPU reference, wall clock
  double max_error = 0;
};

struct fir_report {
  std::int64_t frames = 0;
  std::int64_t clipped = 0;  // integer output only
  std::optional<fir_verification> verified;
};

/// Filters every channel of `in` through `taps` into `output` in `format` (written to a temporary and
/// renamed into place; nothing is left behind on failure). With `verify`, each block runs on both
/// backends, `b`'s output is written, and a difference past fir_verify_allowance throws (exit code
/// software) before the output is renamed into place.
fir_report filter_audio(io::audio_reader& in, const std::filesystem::path& output, const io::audio_format& format,
                        const std::vector<double>& taps, std::int64_t block_frames, backend b, bool verify);

/// "WAV PCM_16, 2 channels, 44100 Hz"
std::string describe(const io::audio_format& format);

/// "clipped 3 of 88200 samples at full scale"
std::string clipping_line(const fir_report& report, int channels);

/// "verify fir: lookback 0.1234 ms, cpu 5.6789 ms, max |diff| 2.4e-07 (allowance 1e-05): outputs match"
std::string verification_line(const fir_verification& v);

}  // namespace lookback::cli
