#pragma once
// The subcommands. Each takes the words after its name and returns the exit code; failures throw
// cli_error or io::io_error, which main reports in one line.
#include <string>
#include <vector>

namespace lookback::cli {

using args = std::vector<std::string>;

int reduce_command(const args& a);
int scan_command(const args& a);
int histogram_command(const args& a);
int compact_command(const args& a);
int sort_command(const args& a);
int demo_command(const args& a);
int ladder_command(const args& a);
int fir_command(const args& a);
int conv2d_command(const args& a);
int sat_command(const args& a);
int boxfilter_command(const args& a);

struct command {
  const char* name;
  const char* summary;
  int (*run)(const args&);
};

inline constexpr command commands[] = {
    {"reduce", "reduce an array (sum, min, max) and print the result", reduce_command},
    {"scan", "exclusive or inclusive scan of an array into a .npy or raw file", scan_command},
    {"histogram", "histogram into equal bins, with O(1) range-count queries and a chart", histogram_command},
    {"compact", "stream compaction: keep the values that flags or a predicate select, into a file", compact_command},
    {"sort", "stable radix sort of keys, and of values with them, into files", sort_command},
    {"conv2d", "2D filter of an image or array (a mask, box, gaussian, sharpen, sobel) into a file", conv2d_command},
    {"sat", "summed-area table (2D inclusive prefix sums) of an image or array into a .npy file", sat_command},
    {"boxfilter", "mean over a (2R+1)^2 window of every pixel, from the summed-area table", boxfilter_command},
    {"fir", "FIR filter of WAV or FLAC audio (designed lowpass, highpass, bandpass, or taps) into a file", fir_command},
    {"demo", "run every algorithm over the sample files in data/", demo_command},
    {"ladder", "time every rung of the reduce or scan kernel ladder against CUB (needs a GPU)", ladder_command},
};

}  // namespace lookback::cli
