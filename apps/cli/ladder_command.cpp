// lookback ladder reduce|scan|conv1d|conv2d: every rung of a kernel ladder (and CUB where it has the
// operation) on the same fresh random data, each checked against the CPU reference and timed, printed
// as a table in the style of Harris's; the convolutions add the tiling's textbook load reduction.
#include "cli/cli_error.hpp"
#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/device_memory.hpp"
#include "cli/exit_codes.hpp"
#include "cli/ladder_plot.hpp"
#include "io/array.hpp"
#include "io/atomic_file.hpp"
#include "typed/compare.hpp"
#include "typed/reference.hpp"
#include "typed/gpu_probe.hpp"
#include "typed/gpu_timing.hpp"
#include "typed/ladder_ops.hpp"
#include "typed/typed_ops.hpp"
#include "typed/visit.hpp"

#include <lookback/primitives/cpu/convolution.hpp>
#include <lookback/primitives/device_buffer.cuh>
#include <lookback/primitives/ladder/convolution_limits.hpp>
#include <lookback/primitives/stream.cuh>

#include <boost/program_options.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <type_traits>

namespace lookback::cli {
namespace {


constexpr int warmups = 2;
constexpr int timed_runs = 9;
constexpr std::int64_t default_n = std::int64_t{1} << 24;
constexpr const char* usage = "lookback ladder reduce|scan|conv1d|conv2d [--n N] [--type T] [--mask M] [--json FILE] [--plot FILE.png]";

/// A positive count: decimal digits, or 2^K for K in 0..62.
std::int64_t parse_count(const std::string& text) {
  const auto refuse = [&](const std::string& why) -> std::int64_t {
    throw cli_error(exit_code::usage, "--n " + why + ", not '" + text + "'");
  };
  const auto digits = [](const std::string& s) {
    return !s.empty() && s.size() <= 19 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  std::int64_t n = 0;
  if (text.rfind("2^", 0) == 0) {
    const std::string exponent = text.substr(2);
    const int k = digits(exponent) && exponent.size() <= 2 ? std::stoi(exponent) : -1;
    if (k < 0 || k > 62) return refuse("must be a positive integer or 2^K (K <= 62)");
    n = std::int64_t{1} << k;
  } else {
    if (!digits(text)) return refuse("must be a positive integer or 2^K");
    const unsigned long long value = std::stoull(text);
    if (value > static_cast<unsigned long long>(std::numeric_limits<std::int64_t>::max()))
      return refuse("is too large");
    n = static_cast<std::int64_t>(value);
  }
  if (n < 1) return refuse("must be at least 1");
  // Host and device hold several n-element arrays of up to 8 bytes: past 2^34 items the byte counts
  // leave every real machine (and near 2^60 they would wrap).
  if (n > (std::int64_t{1} << 34)) return refuse("is too large (at most 2^34)");
  return n;
}

/// Integers in [-b, b] ([0, b] unsigned) with b = min(1000, max / n), so that no partial sum of n of
/// them can overflow; floating point in [0, 1).
io::host_array random_input(io::dtype type, std::int64_t n, std::mt19937_64& rng) {
  io::host_array a{type, {n}, std::vector<std::byte>(static_cast<std::size_t>(n) * io::dtype_size(type))};
  typed::visit_numeric(type, [&](auto zero) {
    using T = decltype(zero);
    T* out = a.as<T>();
    if constexpr (std::is_floating_point_v<T>) {
      std::uniform_real_distribution<T> dist(T(0), T(1));
      const T below_one = std::nextafter(T(1), T(0));
      for (std::int64_t i = 0; i < n; ++i) out[i] = std::min(dist(rng), below_one);  // libstdc++ may round to 1
    } else {
      const auto bound = static_cast<T>(std::clamp<std::int64_t>(
          static_cast<std::int64_t>(std::min<std::uint64_t>(std::numeric_limits<T>::max(), std::uint64_t{1} << 62)) / n,
          1, 1000));
      T lowest = T(0);
      if constexpr (std::is_signed_v<T>) lowest = static_cast<T>(-bound);
      std::uniform_int_distribution<T> dist(lowest, bound);
      for (std::int64_t i = 0; i < n; ++i) out[i] = dist(rng);
    }
  });
  return a;
}

/// Checks a row's output bytes against the CPU reference (typed/reference.hpp); returns what differs.
using output_check = std::function<std::optional<std::string>(const std::vector<std::byte>& output)>;

output_check reduce_check(const io::host_array& input) {
  return [&input](const std::vector<std::byte>& output) -> std::optional<std::string> {
    const auto e = typed::reduce_error(typed::op_kind::sum, input, output.data());
    if (!e) return std::nullopt;
    return "sum is " + e->actual + ", reference " + e->expected;
  };
}

output_check scan_check(const io::host_array& input) {
  const typed::scan_spec spec{input.type, typed::op_kind::sum, true, typed::identity(input.type, typed::op_kind::sum)};
  return [&input, spec](const std::vector<std::byte>& output) -> std::optional<std::string> {
    const auto e = typed::scan_error(spec, input, output.data());
    if (!e) return std::nullopt;
    return "element " + std::to_string(e->index) + " is " + e->actual + ", reference " + e->expected;
  };
}

/// The convolution rows against the long-double CPU reference, to within the rounding of `taps`
/// products summed in T (inputs in [0, 1), taps summing to under 1).
output_check convolution_check(typed::ladder_family family, const io::host_array& input, const io::host_array& mask,
                               const typed::convolution_problem& p) {
  std::vector<long double> expected;
  double eps = 0;
  typed::visit_numeric(input.type, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_floating_point_v<T>) {
      const std::vector<T> x(input.as<T>(), input.as<T>() + input.size());
      const std::vector<T> m(mask.as<T>(), mask.as<T>() + mask.size());
      expected = family == typed::ladder_family::conv1d
                     ? cpu::correlate1d(x, m, p.mask / 2, boundary::zero)
                     : cpu::correlate2d(x, p.height, static_cast<int>(p.width), m, p.mask, p.mask, boundary::zero);
      eps = std::numeric_limits<T>::epsilon();
    }
  });
  const double tolerance = 2 * eps * static_cast<double>(mask.size());
  const io::dtype type = input.type;
  return [expected = std::move(expected), tolerance, type](const std::vector<std::byte>& output) -> std::optional<std::string> {
    std::optional<std::string> problem;
    typed::visit_numeric(type, [&](auto zero) {
      using T = decltype(zero);
      const auto* got = reinterpret_cast<const T*>(output.data());
      for (std::size_t i = 0; i < expected.size() && !problem; ++i)
        if (!(std::fabs(static_cast<long double>(got[i]) - expected[i]) <= tolerance))
          problem = "element " + std::to_string(i) + " is " + typed::format_value(got[i]) + ", reference " +
                    typed::format_value(static_cast<double>(expected[i]));
    });
    return problem;
  };
}

struct row_result {
  typed::ladder_row row;
  float ms = 0;
  std::optional<std::string> failure;
};

/// `conv`: the convolutions' problem, its masks in host memory (the device copy is made here).
std::vector<row_result> run_ladder(typed::ladder_family family, const io::host_array& input, const output_check& check,
                                   typed::convolution_problem conv = {}, const io::host_array* mask = nullptr) {
  const std::int64_t n = input.size();
  const std::size_t output_bytes =
      family == typed::ladder_family::reduce ? io::dtype_size(input.type) : input.bytes.size();
  // Each rung's temporary storage is small beside these (should it fail, main reports out of memory).
  ensure_device_memory(input.bytes.size() + (mask ? mask->bytes.size() : 0) + output_bytes, "input, mask and output");
  const cuda_stream stream;
  const device_buffer<std::byte> d_in = to_device(input.bytes, stream);
  const device_buffer<std::byte> d_mask = to_device(mask ? mask->bytes : std::vector<std::byte>{}, stream);
  conv.d_mask = d_mask.data();
  device_buffer<std::byte> d_out(output_bytes, stream);
  std::vector<row_result> results;
  for (const typed::ladder_row& row : typed::ladder_rows(family)) {
    // The checked call copies a constant-memory rung's mask; the timed ones find it there, so that the
    // copy from pageable memory is not timed as those rungs' kernels (rung 1 and the production one
    // copy nothing).
    bool mask_uploaded = false;
    const auto call = [&](void* d_temp, std::size_t& temp_bytes) {
      if (!typed::is_convolution(family)) {
        typed::run_ladder_row(family, row, input.type, d_temp, temp_bytes, d_in.data(), d_out.data(), n, stream);
      } else if (d_temp == nullptr) {
        temp_bytes = 1;  // the convolutions need none
      } else {
        typed::run_convolution_row(family, row, input.type, conv, d_in.data(), d_out.data(), stream, mask_uploaded);
        mask_uploaded = true;
      }
    };
    std::size_t temp_bytes = 0;
    call(nullptr, temp_bytes);
    device_buffer<std::byte> d_temp(temp_bytes, stream);
    // Checked on a poisoned output first, so an element no kernel wrote cannot pass by luck.
    d_out.fill_bytes(0xAB);
    call(d_temp.data(), temp_bytes);
    row_result r;
    r.row = row;
    r.failure = check(to_host(d_out));
    r.ms = typed::median_time_ms(stream, [&] { call(d_temp.data(), temp_bytes); }, warmups, timed_runs);
    results.push_back(std::move(r));
  }
  return results;
}

double gb_per_s(std::int64_t bytes, float ms) { return ms > 0 ? static_cast<double>(bytes) / (ms * 1e6) : 0.0; }

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string json_number(double value) {
  if (!std::isfinite(value)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", value);
  return buf;
}

struct table_context {
  typed::ladder_family family;
  io::dtype type;
  std::int64_t n;
  std::int64_t bytes;
  std::string gpu;
  int mask = 0;  // convolutions: taps (1D) or side (2D)
};

/// The convolutions' "tiling" column: the textbook's load reduction for the row's tile.
std::string tiling_cell(const table_context& c, const typed::ladder_row& row) {
  if (!typed::is_convolution(c.family)) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "  %7.2fx", typed::convolution_tiling_reduction(c.family, row, c.mask));
  return buf;
}

void print_table(std::ostream& out, const table_context& c, const std::vector<row_result>& rows) {
  std::size_t width = std::strlen("variant");
  for (const row_result& r : rows) width = std::max(width, r.row.name.size());
  char line[512];
  std::snprintf(line, sizeof line, "%-*s  %10s  %9s  %8s  %10s%s  %s\n", static_cast<int>(width), "variant", "time (ms)",
                "GB/s", "step", "cumulative", typed::is_convolution(c.family) ? "    tiling" : "", "check");
  out << line;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const row_result& r = rows[i];
    char step[32] = "-";
    if (i > 0) std::snprintf(step, sizeof step, "%.2fx", rows[i - 1].ms / r.ms);
    std::snprintf(line, sizeof line, "%-*s  %10.4f  %9.1f  %8s  %9.2fx%s  %s\n", static_cast<int>(width),
                  r.row.name.c_str(), r.ms, gb_per_s(c.bytes, r.ms), step, rows[0].ms / r.ms,
                  tiling_cell(c, r.row).c_str(), r.failure ? "FAILED" : "ok");
    out << line;
  }
}

std::string table_json(const table_context& c, const std::vector<row_result>& rows) {
  std::ostringstream j;
  j << "{\n  \"command\": \"ladder\",\n  \"family\": " << json_string(std::string(typed::ladder_family_name(c.family)))
    << ",\n  \"type\": " << json_string(std::string(io::dtype_name(c.type))) << ",\n  \"n\": " << c.n
    << (typed::is_convolution(c.family) ? ",\n  \"mask\": " + std::to_string(c.mask) : std::string())
    << ",\n  \"bytes_moved\": " << c.bytes << ",\n  \"gpu\": " << json_string(c.gpu)
    << ",\n  \"timing\": {\"statistic\": \"median\", \"warmups\": " << warmups << ", \"runs\": " << timed_runs
    << "},\n  \"rows\": [\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const row_result& r = rows[i];
    j << "    {\"variant\": " << json_string(r.row.name) << ", \"rung\": " << (r.row.cub ? "null" : std::to_string(r.row.variant))
      << ", \"cub\": " << (r.row.cub ? "true" : "false") << ", \"time_ms\": " << json_number(r.ms)
      << ", \"gb_per_s\": " << json_number(gb_per_s(c.bytes, r.ms))
      << ", \"step_speedup\": " << (i == 0 ? "null" : json_number(rows[i - 1].ms / r.ms))
      << ", \"cumulative_speedup\": " << json_number(rows[0].ms / r.ms);
    if (typed::is_convolution(c.family))
      j << ", \"tiling_reduction\": " << json_number(typed::convolution_tiling_reduction(c.family, r.row, c.mask));
    j
      << ", \"check\": " << (r.failure ? "\"FAILED\"" : "\"ok\"");
    if (r.failure) j << ", \"failure\": " << json_string(*r.failure);
    j << "}" << (i + 1 < rows.size() ? "," : "") << "\n";
  }
  j << "  ]\n}\n";
  return j.str();
}

}  // namespace

int ladder_command(const args& a) {
  std::string family_text, n_text, type_text, json_path, plot_path;
  // Not a value anyone types, so that --mask 0 is refused rather than taken for the default.
  constexpr int mask_not_given = std::numeric_limits<int>::min();
  int mask = mask_not_given;
  po::options_description desc("ladder options");
  desc.add_options()
      ("help,h", "show this help")
      ("n", po::value(&n_text)->default_value("2^24"), "number of elements: a positive integer or 2^K")
      ("type", po::value(&type_text),
       "element type: int32, uint32, int64, uint64, float32, float64 (default: float32 for reduce, int32 for scan, "
       "whose every element is then checked exactly)")
      ("mask", po::value(&mask), "convolutions: taps (conv1d, odd, at most 255; default 9) or the square mask's side "
       "(conv2d, odd, at most 15; default 5)")
      ("json", po::value(&json_path), "also write the table's numbers to FILE as JSON")
      ("plot", po::value(&plot_path), "also draw the table into FILE.png (scripts/plot_ladder.py: python3 with matplotlib)");
  po::options_description hidden;
  hidden.add_options()("family", po::value(&family_text), "reduce | scan | conv1d | conv2d");
  po::positional_options_description positional;
  positional.add("family", 1);
  const std::string help =
      std::string(usage) + "\n\n" +
      "Runs every rung of the reduce (10 kernels) or inclusive-scan (7 kernels) ladder, then CUB, or of the\n"
      "1D (5) or 2D (3) convolution ladder (zero ghosts; conv2d filters a square image of about n pixels),\n"
      "on the same fresh random data (integers small enough that no sum overflows, floating point in [0, 1)),\n"
      "checks each result against the CPU reference and prints: time (CUDA events, median of " +
      std::to_string(timed_runs) + " runs\nafter " + std::to_string(warmups) +
      " warm-ups), GB/s (bytes read + written), step speedup (over the row above) and cumulative\n"
      "speedup (over row 1); the convolutions add the tiling's textbook load reduction,\n"
      "TILE*MASK/(TILE+MASK-1) in 1D and TILE^2*MASK^2/(TILE+MASK-1)^2 in 2D, for the tile each row uses.\n"
      "A row that fails its check prints FAILED and the command exits 70.\n"
      "Needs a GPU (exit 69 without one). Defaults: --n 2^24, --type float32 (reduce, convolutions) or int32 (scan).";
  if (!parse_options(a, desc, help, &hidden, &positional)) return exit_code::ok;

  if (family_text.empty())
    throw cli_error(exit_code::usage, "which ladder: reduce, scan, conv1d or conv2d? (usage: " + std::string(usage) + ")");
  const auto family = typed::parse_ladder_family(family_text);
  if (!family) throw cli_error(exit_code::usage, "unknown ladder '" + family_text + "' (reduce, scan, conv1d or conv2d)");
  const bool convolution = typed::is_convolution(*family);
  std::int64_t n = parse_count(n_text);
  if (type_text.empty()) type_text = *family == typed::ladder_family::scan ? "int32" : "float32";
  const auto type = io::parse_dtype(type_text);
  if (convolution) {
    if (!type || (*type != io::dtype::float32 && *type != io::dtype::float64))
      throw cli_error(exit_code::usage, "--type must be float32 or float64 for the convolutions, not '" + type_text + "'");
  } else if (!type || !typed::is_numeric(*type)) {
    throw cli_error(exit_code::usage, "--type must be one of " + typed::numeric_dtype_list() + ", not '" + type_text + "'");
  }
  typed::convolution_problem problem;
  if (convolution) {
    const bool two_d = *family == typed::ladder_family::conv2d;
    const int largest = two_d ? ladder::max_ladder_mask_side : ladder::max_ladder_mask_taps;
    if (mask == mask_not_given) mask = two_d ? 5 : 9;
    if (mask < 1 || mask % 2 == 0 || mask > largest)
      throw cli_error(exit_code::usage, "--mask must be odd, from 1 to " + std::to_string(largest) + ", not " +
                                            std::to_string(mask));
    problem.mask = mask;
    problem.width = n;
    if (two_d) {
      const auto side = static_cast<std::int64_t>(std::sqrt(static_cast<double>(n)));
      if (side > std::numeric_limits<int>::max()) throw cli_error(exit_code::usage, "--n is too large for a square image");
      problem.height = static_cast<int>(side);
      problem.width = side;
      n = side * side;
    }
  } else if (mask != mask_not_given) {
    throw cli_error(exit_code::usage, "--mask is for the convolution ladders");
  }
  std::optional<ladder_plotter> plotter;
  if (!plot_path.empty()) {
    if (io::extension_lower(plot_path) != ".png") throw cli_error(exit_code::usage, "--plot writes a .png file, not " + plot_path);
    if (!json_path.empty() && io::same_file(json_path, plot_path))
      throw cli_error(exit_code::usage, "--json and --plot name the same file, " + plot_path);
    plotter = find_ladder_plotter();
  }
  // Created now, so that an uncreatable output fails before the minutes of work (and whether or not
  // there is a GPU); a run that stops before committing them leaves nothing behind.
  std::optional<io::atomic_output_file> json;
  if (!json_path.empty()) json.emplace(json_path);
  std::optional<io::atomic_output_file> plot;
  if (plotter) plot.emplace(plot_path);
  if (const auto missing = typed::gpu_unavailable_reason())
    throw cli_error(exit_code::unavailable, "needs a GPU: " + *missing);

  std::mt19937_64 rng(std::random_device{}());
  const io::host_array input = random_input(*type, n, rng);
  const std::int64_t taps = convolution ? (*family == typed::ladder_family::conv2d ? problem.mask * problem.mask : problem.mask) : 0;
  // Taps in [0, 1 / taps): every output lies in [0, 1), whatever the mask.
  io::host_array mask_array = random_input(*type, std::max<std::int64_t>(taps, 1), rng);
  typed::visit_numeric(*type, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_floating_point_v<T>)
      for (std::int64_t i = 0; i < mask_array.size(); ++i) mask_array.as<T>()[i] /= static_cast<T>(taps);
  });
  problem.h_mask = mask_array.bytes.data();
  const output_check check = convolution                                ? convolution_check(*family, input, mask_array, problem)
                             : *family == typed::ladder_family::reduce ? reduce_check(input)
                                                                       : scan_check(input);
  table_context context{*family, *type, n, typed::ladder_bytes_moved(*family, *type, n), typed::gpu_description()};
  context.mask = problem.mask;
  const std::vector<row_result> rows = run_ladder(*family, input, check, problem, &mask_array);

  const char* what = *family == typed::ladder_family::scan     ? " (inclusive sum)"
                     : *family == typed::ladder_family::reduce ? " (sum)"
                                                               : " (zero ghosts)";
  std::cout << "lookback ladder " << typed::ladder_family_name(*family) << what
            << ": n = " << n << " " << io::dtype_name(*type)
            << (convolution ? (*family == typed::ladder_family::conv2d
                                   ? " (" + std::to_string(problem.height) + " x " + std::to_string(problem.width) +
                                         "), mask " + std::to_string(problem.mask) + " x " + std::to_string(problem.mask)
                                   : ", mask of " + std::to_string(problem.mask) + " taps")
                            : std::string()) << " on " << context.gpu << "; median of " << timed_runs
            << " runs after " << warmups << " warm-ups; GB/s counts " << context.bytes << " bytes read + written\n\n";
  print_table(std::cout, context, rows);
  // Out before the JSON (which may be /dev/stdout) and before a failure skips main's flush.
  if (!std::cout.flush()) throw cli_error(exit_code::io_error, "writing the table to standard output failed");
  if (json) {
    json->write(table_json(context, rows));
    json->commit();
  }

  std::string failed;
  std::size_t failures = 0;
  for (const row_result& r : rows) {
    if (!r.failure) continue;
    if (failures++ == 0) failed = r.row.name + ": " + *r.failure;
  }
  const std::string rows_failed = std::to_string(failures) + " of " + std::to_string(rows.size()) +
                                  " rows FAILED their check; first, " + failed;
  if (plot) {
    try {
      draw_ladder_plot(*plotter, table_json(context, rows), *plot);
    } catch (const cli_error& e) {
      if (failures == 0) throw;
      throw cli_error(exit_code::software, rows_failed + "; and " + e.what());
    }
  }
  if (failures > 0) throw cli_error(exit_code::software, rows_failed);
  return exit_code::ok;
}

}  // namespace lookback::cli
