#include "cli/array_dist.hpp"
#include "cli/array_files.hpp"
#include "cli/array_stream.hpp"
#include "cli/array_ops.hpp"
#include "cli/bar_chart.hpp"
#include "cli/cli_error.hpp"
#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/device_memory.hpp"
#include "cli/exit_codes.hpp"
#include "cli/gpu_run.hpp"
#include "cli/progress_bar.hpp"
#include "io/atomic_file.hpp"
#include "io/npy.hpp"
#include "io/number_text.hpp"
#include "typed/histogram_ops.hpp"
#include "typed/visit.hpp"

#include <lookback/primitives/device_buffer.cuh>
#include <lookback/primitives/stream.cuh>

#include <cctype>
#include <charconv>
#include <cstring>
#include <iostream>
#include <optional>

namespace lookback::cli {
namespace {

std::pair<double, double> parse_range(const std::string& text) {
  const auto colon = text.find(':');
  if (colon != std::string::npos) {
    const auto a = io::parse_whole_double(text.substr(0, colon));
    const auto b = io::parse_whole_double(text.substr(colon + 1));
    if (a && b) return {*a, *b};
  }
  throw cli_error(exit_code::usage, "--range must be LO:HI, not '" + text + "'");
}

/// Bins A through B (inclusive), refused with `code` unless 0 <= A <= B < bins.
void append_query(long a, long b, int num_bins, const std::string& where, int code, std::vector<int>& queries) {
  if (a < 0 || b < a || b >= num_bins)
    throw cli_error(code, where + " " + std::to_string(a) + ":" + std::to_string(b) + " is outside the " +
                              std::to_string(num_bins) + " bins (0 <= A <= B < bins)");
  queries.push_back(static_cast<int>(a));
  queries.push_back(static_cast<int>(b));
}

/// "A:B" from the command line.
void append_query_option(const std::string& text, int num_bins, std::vector<int>& queries) {
  long a = -1, b = -1;
  const char* const last = text.data() + text.size();
  const auto [a_end, a_ec] = std::from_chars(text.data(), last, a);
  const bool ok = a_ec == std::errc() && a_end != last && *a_end == ':' &&
                  [&, a_end = a_end] {
                    const auto [b_end, b_ec] = std::from_chars(a_end + 1, last, b);
                    return b_ec == std::errc() && b_end == last;
                  }();
  if (!ok) throw cli_error(exit_code::usage, "--query '" + text + "' is not A:B");
  append_query(a, b, num_bins, "--query", exit_code::usage, queries);
}

/// A (k, 2) array of int32 or int64 bin pairs.
void append_query_file(const std::string& path, int num_bins, std::vector<int>& queries) {
  const io::host_array q = io::read_npy(path);
  const bool int_type = q.type == io::dtype::int32 || q.type == io::dtype::int64;
  if (!int_type || q.shape.size() != 2 || q.shape[1] != 2)
    throw cli_error(exit_code::data_error, path + ": queries must be a (k, 2) int32 or int64 array, not " +
                                               std::string(io::dtype_name(q.type)) + " " + io::shape_string(q.shape));
  for (std::int64_t i = 0; i < q.shape[0]; ++i) {
    const auto value = [&](int j) {
      return q.type == io::dtype::int32 ? static_cast<long>(q.as<std::int32_t>()[2 * i + j])
                                        : static_cast<long>(q.as<std::int64_t>()[2 * i + j]);
    };
    append_query(value(0), value(1), num_bins, path + ": query " + std::to_string(i), exit_code::data_error, queries);
  }
}

std::vector<std::uint64_t> gpu_queries(const io::host_array& counts, const std::vector<int>& queries) {
  const std::int64_t k = static_cast<std::int64_t>(queries.size() / 2);
  const std::size_t counter_bytes = io::dtype_size(counts.type);
  // The histogram, its prefix sum (one counter more), the queries and their answers.
  const std::size_t needed = 2 * counts.bytes.size() + counter_bytes + queries.size() * sizeof(int) +
                             static_cast<std::size_t>(k) * counter_bytes;
  return within_device_memory(needed, "histogram, its prefix sum, the queries and their counts", [&] {
    const cuda_stream stream;
    const auto d_hist = to_device(counts.bytes, stream);
    const auto d_queries = to_device(queries, stream);
    device_buffer<std::byte> d_counts(static_cast<std::size_t>(k) * counter_bytes, stream);
    typed::range_counts_gpu(counts.type, d_hist.data(), static_cast<int>(counts.size()), d_queries.data(), k,
                            d_counts.data(), stream);
    io::host_array out{counts.type, {k}, to_host(d_counts)};
    return widen(out);
  });
}

}  // namespace

int histogram_command(const args& a) {
  common_options common;
  memory_options memory;
  launch_options launching;
  std::string input, output, range_text, counter_text = "uint64", queries_file;
  std::vector<std::string> query_texts;
  int bins = 0;
  bool chart = false;
  po::options_description desc("histogram options");
  desc.add_options()
      ("input,i", po::value(&input)->required(), "samples (.npy, or raw with --dtype): uint8, uint16, int32, uint32, float32, float64")
      ("bins", po::value(&bins)->required(), "number of equal bins, 1 to 65536")
      ("range", po::value(&range_text)->required(), "LO:HI, the bins cover [LO, HI); samples outside and NaNs are dropped")
      ("output,o", po::value(&output), "write the counts (.npy, or raw)")
      ("counter", po::value(&counter_text)->default_value("uint64"), "counter type: uint32 | uint64")
      ("query", po::value(&query_texts)->composing(), "A:B, print the count of samples in bins A..B (repeatable)")
      ("queries", po::value(&queries_file), "(k, 2) int .npy of A, B bin pairs")
      ("chart", po::bool_switch(&chart), "print a bar chart of the histogram");
  add_common_options(desc, common);
  add_memory_options(desc, memory);
  add_launch_options(desc, launching);
  if (!parse_options(a, desc,
                     "lookback histogram -i X.npy --bins N --range LO:HI [-o H.npy] [--counter uint32|uint64] "
                     "[--query A:B ...] [--queries Q.npy] [--chart] [--gpus N | --distributed]"))
    return exit_code::ok;

  typed::histogram_spec spec;
  spec.num_bins = bins;
  std::tie(spec.lower, spec.upper) = parse_range(range_text);
  const auto counter = io::parse_dtype(counter_text);
  if (!counter || !typed::is_histogram_counter(*counter))
    throw cli_error(exit_code::usage, "--counter must be uint32 or uint64, not '" + counter_text + "'");
  spec.counter = *counter;
  if (const std::string problem = typed::bins_problem(bins); !problem.empty()) throw cli_error(exit_code::usage, problem);
  std::vector<int> queries;
  for (const std::string& q : query_texts) append_query_option(q, bins, queries);
  if (!output.empty()) {
    io::refuse_same_file(input, output);
    if (!queries_file.empty()) io::refuse_same_file(queries_file, output);
  }
  const backend b = resolve_backend(common, launching, memory);
  launch l(launching, b);
  if (!queries_file.empty()) append_query_file(queries_file, bins, queries);

  const array_file samples(input, common.dtype);
  if (!typed::is_histogram_sample(samples.type))
    throw cli_error(exit_code::data_error, input + ": dtype " + std::string(io::dtype_name(samples.type)) +
                                               " is not supported (supported: " + typed::histogram_sample_list() + ")");
  spec.sample = samples.type;
  if (const std::string problem = typed::histogram_spec_problem(spec); !problem.empty())
    throw cli_error(exit_code::usage, problem);

  io::host_array counts{spec.counter, {bins},
                        std::vector<std::byte>(static_cast<std::size_t>(bins) * io::dtype_size(spec.counter))};
  l.ready("histogram", a, input_signature(samples));
  std::optional<array_output> out;
  l.on_root([&] {
    if (!output.empty()) out.emplace(output, spec.counter, counts.shape);
  });
  const std::size_t width = io::dtype_size(samples.type);
  pipelines::file_source source = samples.source();
  dist_outcome checks;  // the single-process path fills its CUB check alone
  std::string how;
  if (l.active()) {
    checks = histogram_distributed(l, spec, source, counts.bytes.data(), stream_settings_for(b, common, memory, nullptr));
    how = describe_run(l, checks, width, false);
  } else {
    progress_bar bar("lookback histogram", samples.size(),
                     static_cast<std::uint64_t>(samples.size()) * width >= long_run_bytes);
    const streamed r = histogram_streamed(spec, source, counts.bytes.data(), stream_settings_for(b, common, memory, &bar));
    how = describe_plan(r.plan, width);
    checks.cub = r.verified;
  }
  l.on_root([&] {
    if (!out) return;
    out->sink().write(0, bins, counts.bytes.data());
    out->commit(counts.shape);
  });
  if (!l.root()) return exit_code::ok;

  const std::vector<std::uint64_t> wide = widen(counts);
  std::uint64_t counted = 0;
  for (const std::uint64_t c : wide) counted += c;
  std::cout << "histogram of " << samples.size() << " " << io::dtype_name(samples.type) << " samples into " << bins
            << " bins over [" << spec.lower << ", " << spec.upper << "): " << counted << " counted, "
            << static_cast<std::uint64_t>(samples.size()) - counted << " dropped (" << how << ")\n";
  if (!queries.empty()) {
    const std::vector<std::uint64_t> answers =
        b == backend::gpu ? gpu_queries(counts, queries) : typed::range_counts_cpu(spec.counter, counts.bytes.data(), bins, queries);
    for (std::size_t q = 0; q < answers.size(); ++q)
      std::cout << "bins " << queries[2 * q] << ".." << queries[2 * q + 1] << ": " << answers[q] << "\n";
  }
  if (chart) print_bar_chart(std::cout, wide, spec.lower, spec.upper);
  print_checks(std::cout, l, checks, "histogram");
  return exit_code::ok;
}

}  // namespace lookback::cli
