#include "cli/array_files.hpp"
#include "cli/cli_error.hpp"
#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/exit_codes.hpp"
#include "cli/fir_run.hpp"
#include "io/atomic_file.hpp"
#include "io/audio.hpp"
#include "io/io_error.hpp"
#include "io/npy.hpp"
#include "typed/fir_design.hpp"

#include <cstdio>
#include <iostream>
#include <sstream>

namespace lookback::cli {
namespace {

std::string hz(double f) {
  std::ostringstream out;
  out << f << " Hz";
  return out.str();
}

/// A cutoff strictly between 0 and the input's Nyquist frequency, as a fraction of Nyquist.
double cutoff_fraction(const std::string& what, double f, const std::string& input, int sample_rate) {
  const double nyquist = sample_rate / 2.0;
  if (!(f > 0)) throw cli_error(exit_code::usage, what + " must be above 0 Hz, not " + hz(f));
  if (f >= nyquist)
    throw cli_error(exit_code::usage, what + " " + hz(f) + " is not below the Nyquist frequency " + hz(nyquist) + " of " +
                                          input + " (sampled at " + hz(sample_rate) + ")");
  return f / nyquist;
}

/// "LO:HI" in Hz.
std::pair<double, double> parse_band(const std::string& text) {
  double lo = 0, hi = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%lf:%lf%c", &lo, &hi, &tail) != 2)
    throw cli_error(exit_code::usage, "--bandpass must be LO:HI in Hz, not '" + text + "'");
  if (!(lo < hi)) throw cli_error(exit_code::usage, "--bandpass needs LO < HI, not " + text);
  return {lo, hi};
}

/// A 1-D float32 or float64 .npy of finite taps.
std::vector<double> load_taps(const std::string& path) {
  const io::host_array a = io::read_npy(path);
  if (!io::is_floating(a.type) || a.shape.size() != 1)
    throw cli_error(exit_code::data_error, path + ": taps must be a 1-D float32 or float64 array, not " +
                                               std::string(io::dtype_name(a.type)) + " " + io::shape_string(a.shape));
  if (a.size() == 0) throw cli_error(exit_code::data_error, path + ": holds no taps (an empty array)");
  if (a.size() > typed::max_fir_taps)
    throw cli_error(exit_code::data_error, path + ": " + std::to_string(a.size()) + " taps; at most " +
                                               std::to_string(typed::max_fir_taps));
  return finite_doubles(a, path, [](std::int64_t i) { return "tap " + std::to_string(i); });
}

struct filter_options {
  std::string taps_path, bandpass, window = "hamming";
  double lowpass = 0, highpass = 0;
  int num_taps = 101;
};

/// The one filter the options name.
std::string chosen_filter(const po::variables_map& vm) {
  std::vector<std::string> given;
  for (const char* name : {"taps", "lowpass", "highpass", "bandpass"})
    if (vm.count(name) != 0) given.push_back(std::string("--") + name);
  if (given.empty())
    throw cli_error(exit_code::usage, "no filter given: give --taps T.npy, --lowpass HZ, --highpass HZ or --bandpass LO:HI");
  if (given.size() > 1) throw cli_error(exit_code::usage, "give one filter, not both " + given[0] + " and " + given[1]);
  if (given[0] == "--taps" && (vm.count("num-taps") != 0 || vm.count("window") != 0))
    throw cli_error(exit_code::usage, "--num-taps and --window shape a designed filter; --taps gives its own");
  return given[0].substr(2);
}

struct filter {
  std::vector<double> taps;
  std::string description;  // "lowpass 1000 Hz, 101 taps, hamming window"
};

filter make_filter(const std::string& kind, const filter_options& o, const std::string& input, int sample_rate) {
  if (kind == "taps") {
    filter f{load_taps(o.taps_path), ""};
    f.description = std::to_string(f.taps.size()) + " taps from " + o.taps_path;
    return f;
  }
  typed::fir_band band;
  std::string band_text;
  if (kind == "lowpass") {
    band = {0.0, cutoff_fraction("--lowpass", o.lowpass, input, sample_rate)};
    band_text = hz(o.lowpass);
  } else if (kind == "highpass") {
    band = {cutoff_fraction("--highpass", o.highpass, input, sample_rate), 1.0};
    band_text = hz(o.highpass);
  } else {
    const auto [lo, hi] = parse_band(o.bandpass);
    band = {cutoff_fraction("--bandpass LO", lo, input, sample_rate), cutoff_fraction("--bandpass HI", hi, input, sample_rate)};
    std::ostringstream text;
    text << lo << "-" << hi << " Hz";
    band_text = text.str();
  }
  typed::window_spec window;
  if (const auto problem = typed::parse_window(o.window, window)) throw cli_error(exit_code::usage, *problem);
  if (const std::string problem = typed::fir_design_problem(band, o.num_taps); !problem.empty())
    throw cli_error(exit_code::usage, problem);
  return {typed::design_fir(band, o.num_taps, window),
          kind + " " + band_text + ", " + std::to_string(o.num_taps) + " taps, " + typed::describe(window) + " window"};
}

}  // namespace

int fir_command(const args& a) {
  common_options common;
  filter_options o;
  std::string input, output, format;
  std::int64_t block_frames = 0;
  po::options_description desc("fir options");
  desc.add_options()
      ("input,i", po::value(&input)->required(), "audio in: WAV or FLAC, 16-, 24-, 32-bit integer or float samples")
      ("output,o", po::value(&output)->required(), "audio out, in the input's container and sample format")
      ("taps", po::value(&o.taps_path), "the filter's taps: a 1-D float32 or float64 .npy")
      ("lowpass", po::value(&o.lowpass), "HZ: design a lowpass filter with this cutoff")
      ("highpass", po::value(&o.highpass), "HZ: design a highpass filter (odd --num-taps)")
      ("bandpass", po::value(&o.bandpass), "LO:HI in Hz: design a bandpass filter")
      ("num-taps", po::value(&o.num_taps), "taps of a designed filter (default 101)")
      ("window", po::value(&o.window), "hamming | blackman | kaiser | kaiser:BETA (default hamming; kaiser's beta 8.6)")
      ("format", po::value(&format), "float: write 32-bit float samples (default: the input's sample format)")
      ("block-frames", po::value(&block_frames), "frames filtered at a time (default 1048576 / channels); the filter's state carries over");
  add_common_options(desc, common);
  const auto vm = parse_options(a, desc,
                                "lookback fir -i IN.wav -o OUT.wav (--taps T.npy | --lowpass HZ | --highpass HZ | "
                                "--bandpass LO:HI) [--num-taps N] [--window W] [--format float] [--block-frames N]");
  if (!vm) return exit_code::ok;

  const std::string kind = chosen_filter(*vm);
  if (!common.dtype.empty()) throw cli_error(exit_code::usage, "--dtype applies to raw arrays, not to audio");
  if (vm->count("format") != 0 && format != "float")
    throw cli_error(exit_code::usage, "--format must be float (without it the output keeps the input's), not '" + format + "'");
  if (vm->count("block-frames") != 0 && (block_frames < 1 || block_frames > max_block_frames))
    throw cli_error(exit_code::usage, "--block-frames must be between 1 and " + std::to_string(max_block_frames) +
                                          ", not " + std::to_string(block_frames));
  io::refuse_same_file(input, output);
  if (kind == "taps") io::refuse_same_file(o.taps_path, output);
  const backend b = resolve_backend(common);

  io::audio_reader in(input);
  if (vm->count("block-frames") == 0) block_frames = default_block_frames(in.format().channels);
  const filter f = make_filter(kind, o, input, in.format().sample_rate);
  io::audio_format out_format = in.format();
  // The output keeps the input's container: a name that says the other one would mislabel the file.
  const std::string suffix = io::extension_lower(output);
  const bool flac_out = out_format.container == io::audio_container::flac;
  if ((suffix == ".wav" && flac_out) || (suffix == ".flac" && !flac_out))
    throw cli_error(exit_code::usage, output + ": a " + suffix + " name for " + std::string(flac_out ? "FLAC" : "WAV") +
                                          " output (the output keeps " + input + "'s container)");
  if (!format.empty()) {
    out_format.sample = io::sample_format::float32;
    if (!io::container_holds(out_format.container, out_format.sample))
      throw cli_error(exit_code::usage, "--format float: " + input + " is FLAC, which holds integer samples only");
  }

  // Said before the filtering rather than 4 GiB into the output (--format float doubles 16-bit data).
  if (const std::string problem = io::too_long_problem(out_format, in.frames()); !problem.empty())
    throw io::io_error(io::error_kind::cant_create, output, problem);
  const fir_report r = filter_audio(in, output, out_format, f.taps, block_frames, b, common.verify);
  std::cout << "fir " << f.description << ": " << input << " (" << describe(in.format()) << ", " << r.frames
            << " frames) -> " << output << " (" << io::container_name(out_format.container) << " "
            << io::sample_format_name(out_format.sample) << ")\n";
  if (io::is_integer(out_format.sample)) std::cout << clipping_line(r, in.format().channels) << "\n";
  if (r.verified) std::cout << verification_line(*r.verified) << "\n";
  return exit_code::ok;
}

}  // namespace lookback::cli
