#include "cli/fir_run.hpp"

#include "cli/cli_error.hpp"
#include "cli/device_memory.hpp"
#include "cli/exit_codes.hpp"
#include "cli/progress_bar.hpp"
#include "io/atomic_file.hpp"
#include "io/io_error.hpp"
#include "typed/fir_ops.hpp"
#include "typed/fir_stream.hpp"
#include "typed/gpu_timing.hpp"

#include <lookback/primitives/cpu/convolution.hpp>
#include <lookback/primitives/device_buffer.cuh>
#include <lookback/primitives/stream.cuh>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>

namespace lookback::cli {
namespace {

/// The GPU backend: each channel block goes up as float, through typed::fir_gpu_filter, and back.
class gpu_fir {
 public:
  explicit gpu_fir(const std::vector<double>& taps) : filter_(std::vector<float>(taps.begin(), taps.end())) {}

  /// Filters x into y; returns the filter's time on the GPU.
  float run(const std::vector<double>& x, std::vector<double>& y) {
    const std::size_t n = x.size();
    x_.assign(x.begin(), x.end());
    if (d_x_.size() < n) {
      d_x_ = device_buffer<float>();
      d_y_ = device_buffer<float>();
      ensure_device_memory(2 * n * sizeof(float) + filter_.device_bytes(static_cast<std::int64_t>(n)),
                           "a block's samples, their output and the FFT segments");
      d_x_ = device_buffer<float>(n, stream_);
      d_y_ = device_buffer<float>(n, stream_);
    }
    copy_to_device(d_x_.data(), x_.data(), n, stream_);
    const float ms = timer_.time_ms(stream_, [&] { filter_(d_x_.data(), d_y_.data(), static_cast<std::int64_t>(n), stream_); });
    const std::vector<float> out = to_host(d_y_.data(), n, stream_);
    y.assign(out.begin(), out.end());
    return ms;
  }

 private:
  cuda_stream stream_;
  typed::event_timer timer_;
  typed::fir_gpu_filter filter_;
  std::vector<float> x_;
  device_buffer<float> d_x_, d_y_;
};

void cpu_fir(const std::vector<double>& taps, const std::vector<double>& x, std::vector<double>& y) {
  cpu::fir_filter(x.data(), y.data(), static_cast<std::int64_t>(x.size()), taps.data(), static_cast<int>(taps.size()));
}

/// A float file's NaN or infinity would spread over a whole FFT segment on the GPU (thousands of
/// samples) but over the taps alone on the CPU: neither is a filtered signal, so the file is refused.
void refuse_non_finite(const io::audio_reader& in, const std::vector<double>& block, std::int64_t frames,
                       std::int64_t first_frame) {
  const int channels = in.format().channels;
  const auto samples = static_cast<std::size_t>(frames) * static_cast<std::size_t>(channels);
  for (std::size_t i = 0; i < samples; ++i)
    if (!std::isfinite(block[i]))
      throw io::io_error(io::error_kind::data_error, in.path(),
                         "sample " + std::to_string(i % channels) + " of frame " +
                             std::to_string(first_frame + static_cast<std::int64_t>(i / channels)) + " is " +
                             (std::isnan(block[i]) ? "NaN" : "infinite") + ": the filter takes finite samples");
}

}  // namespace

fir_report filter_audio(io::audio_reader& in, const std::filesystem::path& output, const io::audio_format& format,
                        const std::vector<double>& taps, std::int64_t block_frames, backend b, bool verify) {
  const int channels = in.format().channels;
  std::unique_ptr<gpu_fir> gpu;
  if (b == backend::gpu || verify) gpu = std::make_unique<gpu_fir>(taps);
  fir_report report;
  if (verify) report.verified.emplace();

  typed::fir_stream::channel_filter filter;
  if (!verify && b == backend::cpu) {
    filter = [&](const std::vector<double>& x, std::vector<double>& y) { cpu_fir(taps, x, y); };
  } else if (!verify) {
    filter = [&](const std::vector<double>& x, std::vector<double>& y) { gpu->run(x, y); };
  } else {
    filter = [&, on_gpu = std::vector<double>()](const std::vector<double>& x, std::vector<double>& y) mutable {
      fir_verification& v = *report.verified;
      v.gpu_ms += gpu->run(x, on_gpu);
      const auto start = std::chrono::steady_clock::now();
      cpu_fir(taps, x, y);
      v.cpu_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      // A NaN difference (an infinity or NaN on one side only) is kept as the maximum: it would never
      // pass the allowance, and later finite differences must not hide it.
      for (std::size_t i = 0; i < y.size(); ++i) {
        if (on_gpu[i] == y[i]) continue;
        const double d = std::abs(on_gpu[i] - y[i]);
        if (std::isnan(d) || d > v.max_error) v.max_error = d;
      }
      if (b == backend::gpu) y.swap(on_gpu);
    };
  }

  io::atomic_output_file out(output);
  io::audio_writer writer(out, format);
  typed::fir_stream stream(channels, static_cast<int>(taps.size()));
  // Blocks no longer than the file: a short file would otherwise size its buffers by the block alone.
  const std::int64_t frames_per_block = std::min(block_frames, std::max<std::int64_t>(in.frames(), 1));
  const auto block_samples = static_cast<std::size_t>(frames_per_block) * static_cast<std::size_t>(channels);
  std::vector<double> block(block_samples), filtered(block_samples);
  progress_bar progress("lookback fir", in.frames(), in.frames() > 4 * block_frames);
  for (std::int64_t n; (n = in.read(block.data(), frames_per_block)) > 0;) {
    if (!io::is_integer(in.format().sample)) refuse_non_finite(in, block, n, report.frames);
    stream.process(block.data(), filtered.data(), n, filter);
    writer.write(filtered.data(), n);
    report.frames += n;
    progress.update(report.frames);
  }
  writer.close();
  // NaN marks a mismatch too: a NaN difference would never exceed the allowance.
  if (report.verified && !(report.verified->max_error <= fir_verify_allowance))
    throw cli_error(exit_code::software, verification_line(*report.verified));
  out.commit();
  report.clipped = writer.clipped_samples();
  return report;
}

std::string describe(const io::audio_format& format) {
  return std::string(io::container_name(format.container)) + " " + std::string(io::sample_format_name(format.sample)) +
         ", " + std::to_string(format.channels) + (format.channels == 1 ? " channel, " : " channels, ") +
         std::to_string(format.sample_rate) + " Hz";
}

std::string clipping_line(const fir_report& report, int channels) {
  return "clipped " + std::to_string(report.clipped) + " of " + std::to_string(report.frames * channels) +
         " samples at full scale";
}

std::string verification_line(const fir_verification& v) {
  char line[256];
  const bool match = v.max_error <= fir_verify_allowance;
  std::snprintf(line, sizeof line, "verify fir: lookback %.4f ms, cpu %.4f ms, max |diff| %.3g (allowance %g): %s",
                v.gpu_ms, v.cpu_ms, v.max_error, fir_verify_allowance,
                match ? "outputs match" : "MISMATCH, the GPU output differs from the CPU reference");
  return line;
}

}  // namespace lookback::cli
