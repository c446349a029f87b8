// Tests of the `lookback` command as a user meets it: exit codes, what lands on stdout and stderr, and
// which files exist afterwards. Every run happens in a private temporary directory, so a test can
// check that a failing command left nothing behind there and changed nothing it was given.
#include <gtest/gtest.h>

#include "support/cli_harness.hpp"
#include "support/run_seed.hpp"

#include <sys/stat.h>

#include <chrono>
#include <regex>
#include <set>

namespace {

using namespace lookback_test_cli;

// --- bad input: one table, every row checked the same way --------------------------------

const std::string valid_input_npy = npy_text(array_of(small_values));
const file_spec valid_input = file("in.npy", valid_input_npy);
// Distinct from anything the command could write, so any change shows.
const file_spec existing_output = file("out.npy", npy_text(array_of(std::vector<double>{42.0})));

std::string int32_data(std::size_t n) { return bytes_of(std::vector<std::int32_t>(n, 7)); }

class table_builder {
 public:
  // A problem with the input file or with options: the same for reduce and scan, and scan must also
  // leave an existing output alone.
  void both(const std::string& name, const std::vector<std::string>& args, const std::vector<file_spec>& files, int code,
            const std::string& message) {
    add({"reduce_" + name, "reduce", args, files, code, message});
    scan(name, args, files, code, message);
  }

  // A problem with the input file, which every array command reads the same way: reduce and scan as
  // in both(), histogram, compact and sort with the options they need (those that write -o also over
  // an existing output).
  void every_reader(const std::string& name, const std::vector<std::string>& args, const std::vector<file_spec>& files,
                    int code, const std::string& message) {
    both(name, args, files, code, message);
    const auto with = [&](std::vector<std::string> extra) {
      std::vector<std::string> all = args;
      all.insert(all.end(), extra.begin(), extra.end());
      return all;
    };
    writing("histogram", name, with({"--bins", "4", "--range", "0:256"}), files, code, message);
    compact(name, with({"--predicate", "gt:0"}), files, code, message);
    sort(name, args, files, code, message);
  }

  void scan(const std::string& name, const std::vector<std::string>& args, const std::vector<file_spec>& files, int code,
            const std::string& message) {
    writing("scan", name, args, files, code, message);
  }

  void compact(const std::string& name, const std::vector<std::string>& args, const std::vector<file_spec>& files,
               int code, const std::string& message) {
    writing("compact", name, args, files, code, message);
  }

  void sort(const std::string& name, const std::vector<std::string>& args, const std::vector<file_spec>& files, int code,
            const std::string& message) {
    writing("sort", name, args, files, code, message);
  }

  // A problem with the output path, which every array command accepts through -o.
  void output(const std::string& name, const std::string& output, std::vector<file_spec> files, int code,
              const std::string& message) {
    files.push_back(valid_input);
    every_writer(name, "{tmp}/in.npy", output, files, code, message);
  }

  // Every array command reading `input` and writing `output`.
  void every_writer(const std::string& name, const std::string& input, const std::string& output,
                    const std::vector<file_spec>& files, int code, const std::string& message) {
    for (const std::string command : {"reduce", "scan", "histogram", "compact", "sort"}) {
      std::vector<std::string> args{"-i", input, "-o", output};
      if (command == "compact") args.insert(args.end(), {"--predicate", "gt:0"});
      if (command == "histogram") args.insert(args.end(), {"--bins", "4", "--range", "0:256"});
      add({command + "_" + name, command, args, files, code, message});
    }
  }

  void add(bad_run row) { rows_.push_back(std::move(row)); }
  std::vector<bad_run> rows() && { return std::move(rows_); }

 private:
  // A command that must write -o out.npy: once with no output file yet and once over an existing one.
  void writing(const std::string& command, const std::string& name, const std::vector<std::string>& args,
               const std::vector<file_spec>& files, int code, const std::string& message) {
    std::vector<std::string> with_o{"-o", "{tmp}/out.npy"};
    with_o.insert(with_o.end(), args.begin(), args.end());
    add({command + "_" + name, command, with_o, files, code, message});
    std::vector<file_spec> with_output = files;
    with_output.push_back(existing_output);
    add({command + "_" + name + "_over_existing_output", command, with_o, with_output, code, message});
  }

  std::vector<bad_run> rows_;
};

std::vector<bad_run> bad_runs() {
  table_builder t;
  const std::vector<std::string> in_npy{"-i", "{tmp}/in.npy"};
  const std::vector<std::string> in_bin{"-i", "{tmp}/in.bin"};
  const auto in = [&](std::string contents) { return std::vector<file_spec>{file("in.npy", std::move(contents))}; };

  // Input files.
  t.every_reader("missing_input", {"-i", "{tmp}/missing.npy"}, {}, ex_noinput, "{tmp}/missing.npy: cannot open");
  t.every_reader("input_is_directory", in_npy, {directory("in.npy")}, ex_noinput, "{tmp}/in.npy: cannot open: is a directory");
  for (const npy_rejection& r : npy_rejections('i', {3}))
    t.every_reader(r.name, in_npy, in(r.contents), ex_dataerr, "{tmp}/in.npy: " + r.message);
  t.every_reader("bad_magic", in_npy, in("\x93NUMPX" + valid_input_npy.substr(6)), ex_dataerr, "{tmp}/in.npy: not a .npy file: bad magic");
  t.every_reader("trailing_data", in_npy, in(valid_input_npy + "xyz"), ex_dataerr, "{tmp}/in.npy: trailing data");
  t.every_reader("zero_dimensional", in_npy, in(npy_with_header(npy_dict("<i4", "()"), int32_data(1))), ex_dataerr,
         "{tmp}/in.npy: 0-D (scalar) array not supported");
  t.both("int8_npy", in_npy, in(npy_text(array_of(std::vector<std::int8_t>{1, 2}))), ex_dataerr,
         "{tmp}/in.npy: dtype int8 is not supported");
  t.both("bool_npy", in_npy, in(npy_with_header(npy_dict("|b1", "(2,)"), std::string("\1\0", 2))), ex_dataerr,
         "{tmp}/in.npy: dtype bool is not supported");

  // Raw input.
  const std::vector<file_spec> raw12{file("in.bin", int32_data(3))};
  t.every_reader("raw_without_dtype", in_bin, raw12, ex_usage, "{tmp}/in.bin: not a .npy file; give --dtype");
  // Without --dtype, a raw path that is missing or a directory says so, not that it needs a dtype.
  t.every_reader("raw_input_missing", in_bin, {}, ex_noinput, "{tmp}/in.bin: cannot open");
  t.every_reader("raw_input_is_directory", in_bin, {directory("in.bin")}, ex_noinput,
                 "{tmp}/in.bin: cannot open: is a directory");
  t.every_reader("raw_size_not_a_multiple", {"-i", "{tmp}/in.bin", "--dtype", "int64"}, {file("in.bin", std::string(6, '\1'))},
         ex_dataerr, "{tmp}/in.bin: size 6 bytes is not a multiple of int64's 8 bytes");
  t.both("unknown_dtype", {"-i", "{tmp}/in.bin", "--dtype", "int128"}, raw12, ex_usage, "--dtype: unknown dtype 'int128'");
  t.both("raw_unsupported_dtype", {"-i", "{tmp}/in.bin", "--dtype", "int16"}, raw12, ex_dataerr,
         "{tmp}/in.bin: dtype int16 is not supported");

  // Options.
  const auto opts = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = in_npy;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  t.both("unknown_option", opts({"--frobnicate"}), {valid_input}, ex_usage, "unrecognised option '--frobnicate'");
  // Options are spelt out in full: a prefix (here of --distributed) is refused, not guessed.
  t.both("abbreviated_option", opts({"--distrib"}), {valid_input}, ex_usage, "unrecognised option '--distrib'");
  t.both("stray_argument", opts({"stray"}), {valid_input}, ex_usage, "unexpected argument 'stray'");
  t.both("bad_op", opts({"--op", "mean"}), {valid_input}, ex_usage, "--op must be sum, min or max, not 'mean'");
  t.both("op_without_value", opts({"--op"}), {valid_input}, ex_usage, "'--op'");
  t.both("bogus_backend", opts({"--backend", "bogus"}), {valid_input}, ex_usage,
         "--backend must be auto, gpu or cpu, not 'bogus'");
  t.both("missing_input_option", {}, {valid_input}, ex_usage, "the option '--input' is required");

  // Scan's own options.
  t.add({"scan_missing_output_option", "scan", in_npy, {valid_input}, ex_usage, "the option '--output' is required"});
  t.scan("malformed_init", opts({"--init", "abc"}), {valid_input}, ex_usage, "--init: 'abc' is not a valid int32 value");
  t.scan("fractional_init_for_int32", opts({"--init", "1.5"}), {valid_input}, ex_usage,
         "--init: '1.5' is not a valid int32 value");
  t.scan("out_of_range_init", opts({"--init", "99999999999"}), {valid_input}, ex_usage,
         "--init: '99999999999' is not a valid int32 value");
  t.scan("empty_init", opts({"--init", ""}), {valid_input}, ex_usage, "--init");
  t.scan("overflowing_init_for_float32", {"-i", "{tmp}/f.npy", "--init", "1e39"},
         {file("f.npy", npy_text(array_of(std::vector<float>{1.5f})))}, ex_usage,
         "--init: '1e39' is not a valid float32 value");
  t.scan("underflowing_init_for_float32", {"-i", "{tmp}/f.npy", "--init", "1e-50"},
         {file("f.npy", npy_text(array_of(std::vector<float>{1.5f})))}, ex_usage,
         "--init: '1e-50' is not a valid float32 value");
  t.scan("init_with_inclusive", opts({"--init", "1", "--inclusive"}), {valid_input}, ex_usage,
         "--init applies to exclusive scans only");

  // Output paths. Equal to the input, the input must survive byte for byte; the snapshot checks that.
  t.output("output_is_input", "{tmp}/in.npy", {}, ex_cantcreat, "output path is the same file as input");
  t.output("output_is_input_spelled_differently", "{tmp}/./in.npy", {}, ex_cantcreat,
           "output path is the same file as input");
  // A missing input named as the output too is a missing input, not a refused output.
  t.every_writer("missing_input_as_output", "{tmp}/missing.npy", "{tmp}/missing.npy", {}, ex_noinput,
                 "{tmp}/missing.npy: cannot open");
  t.output("output_in_missing_directory", "{tmp}/nowhere/out.npy", {}, ex_cantcreat,
           "{tmp}/nowhere/out.npy: cannot create: directory {tmp}/nowhere does not exist");
  // A path below a regular file fails with ENOTDIR even for root, unlike a read-only directory.
  t.output("output_below_a_file", "{tmp}/file.npy/out.npy", {file("file.npy", "x")}, ex_cantcreat,
           "{tmp}/file.npy/out.npy: cannot create");
  t.output("output_is_directory", "{tmp}/outdir", {directory("outdir")}, ex_cantcreat,
           "{tmp}/outdir: cannot create: is a directory");

  // Demo's folders; it must not create its output folder before finding samples.
  t.add({"demo_missing_data_dir", "demo", {"--data-dir", "{tmp}/nodata", "--output-dir", "{tmp}/demo"}, {}, ex_noinput,
         "{tmp}/nodata: not a directory"});
  t.add({"demo_data_dir_name_with_a_line_break", "demo",
         {"--data-dir", "{tmp}/no\nfake: data", "--output-dir", "{tmp}/demo"}, {}, ex_noinput,
         "{tmp}/no fake: data: not a directory"});
  t.add({"demo_empty_data_dir", "demo", {"--data-dir", "{tmp}/data", "--output-dir", "{tmp}/demo"}, {directory("data")},
         ex_noinput, "{tmp}/data: holds no .npy sample files"});
  t.add({"demo_corrupt_sample", "demo", {"--data-dir", "{tmp}/data", "--output-dir", "{tmp}/demo"},
         {file("data/a.npy", "\x93NUMPX")}, ex_dataerr, "{tmp}/data/a.npy: not a .npy file"});
  t.add({"demo_data_dir_is_a_file", "demo", {"--data-dir", "{tmp}/data", "--output-dir", "{tmp}/demo"},
         {file("data", "x")}, ex_noinput, "{tmp}/data"});
  t.add({"demo_output_dir_is_the_data_dir", "demo", {"--data-dir", "{tmp}/data", "--output-dir", "{tmp}/data/."},
         {file("data/a.npy", valid_input_npy)}, ex_cantcreat, "{tmp}/data/.: is the data folder"});
  t.add({"demo_with_a_raw_dtype", "demo", {"--data-dir", "{tmp}/data", "--output-dir", "{tmp}/demo", "--dtype", "int32"},
         {file("data/a.npy", valid_input_npy)}, ex_usage, "--dtype applies to raw arrays"});
  t.add({"demo_uncreatable_output_dir", "demo", {"--data-dir", "{tmp}/data", "--output-dir", "{tmp}/file.npy/demo"},
         {file("data/a.npy", valid_input_npy), file("file.npy", "x")}, ex_cantcreat, "cannot create the output folder"});

  // Histogram: every refusal comes before h.npy is written (the snapshot checks it is never created).
  const file_spec u8_samples = file("in.npy", npy_text(array_of(std::vector<std::uint8_t>{1, 2, 3, 250})));
  const auto histogram = [&](const std::string& name, const std::string& bins, const std::string& range,
                             const std::vector<std::string>& extra, const std::vector<file_spec>& files, int code,
                             const std::string& message) {
    // "--range=LO:HI", so that a negative LO is not taken for an option.
    std::vector<std::string> args{"-i", "{tmp}/in.npy", "-o", "{tmp}/h.npy", "--bins", bins, "--range=" + range};
    args.insert(args.end(), extra.begin(), extra.end());
    t.add({"histogram_" + name, "histogram", args, files, code, message});
  };
  const auto queries = [](const std::string& contents) { return file("q.npy", contents); };
  histogram("zero_bins", "0", "0:100", {}, {u8_samples}, ex_usage, "--bins must be between 1 and 65536, not 0");
  histogram("malformed_bins", "many", "0:100", {}, {u8_samples}, ex_usage, "'--bins'");
  histogram("too_many_bins", "65537", "0:100", {}, {u8_samples}, ex_usage, "--bins must be between 1 and 65536, not 65537");
  histogram("reversed_range", "10", "5:2", {}, {u8_samples}, ex_usage, "--range needs LO < HI");
  histogram("empty_range", "10", "5:5", {}, {u8_samples}, ex_usage, "--range needs LO < HI");
  histogram("infinite_range", "10", "0:inf", {}, {u8_samples}, ex_usage, "--range must be finite");
  histogram("nan_range", "10", "0:nan", {}, {u8_samples}, ex_usage, "--range must be finite");
  const std::vector<std::string> malformed_ranges{"abc", "5", "1:", ":5", "1:2x", "1;2", " 0:10", "0: 10", "0:1e999"};
  for (std::size_t i = 0; i < malformed_ranges.size(); ++i)
    histogram("malformed_range_" + std::to_string(i), "10", malformed_ranges[i], {}, {u8_samples}, ex_usage,
              "--range must be LO:HI, not '" + malformed_ranges[i] + "'");
  histogram("fractional_range_for_integer_samples", "10", "0.5:100", {}, {u8_samples}, ex_usage,
            "--range must be whole numbers for integer samples");
  histogram("range_beyond_float32", "10", "0:1e39", {}, {file("in.npy", npy_text(array_of(std::vector<float>{1.f})))},
            ex_usage, "--range does not fit float32 samples");
  histogram("query_past_the_last_bin", "10", "0:100", {"--query", "3:10"}, {u8_samples}, ex_usage,
            "--query 3:10 is outside the 10 bins");
  histogram("query_backwards", "10", "0:100", {"--query", "4:3"}, {u8_samples}, ex_usage, "--query 4:3 is outside the 10 bins");
  histogram("negative_query", "10", "0:100", {"--query=-1:3"}, {u8_samples}, ex_usage, "--query -1:3 is outside the 10 bins");
  histogram("malformed_query", "10", "0:100", {"--query", "x"}, {u8_samples}, ex_usage, "--query 'x' is not A:B");
  histogram("query_with_trailing_text", "10", "0:100", {"--query", "1:2:3"}, {u8_samples}, ex_usage,
            "--query '1:2:3' is not A:B");
  histogram("query_with_a_space", "10", "0:100", {"--query", "1: 2"}, {u8_samples}, ex_usage,
            "--query '1: 2' is not A:B");
  histogram("query_with_a_plus", "10", "0:100", {"--query", "1:+2"}, {u8_samples}, ex_usage,
            "--query '1:+2' is not A:B");
  histogram("query_past_a_long", "10", "0:100", {"--query", "1:99999999999999999999"}, {u8_samples}, ex_usage,
            "--query '1:99999999999999999999' is not A:B");
  histogram("queries_not_pairs", "10", "0:100", {"--queries", "{tmp}/q.npy"},
            {u8_samples, queries(npy_text(array_of(std::vector<std::int32_t>{1, 2, 3})))}, ex_dataerr,
            "{tmp}/q.npy: queries must be a (k, 2) int32 or int64 array, not int32 (3,)");
  histogram("queries_of_float", "10", "0:100", {"--queries", "{tmp}/q.npy"},
            {u8_samples, queries(npy_text(array_of(std::vector<float>{1, 2, 3, 4}, {2, 2})))}, ex_dataerr,
            "{tmp}/q.npy: queries must be a (k, 2) int32 or int64 array, not float32 (2, 2)");
  histogram("queries_outside_the_bins", "10", "0:100", {"--queries", "{tmp}/q.npy"},
            {u8_samples, queries(npy_text(array_of(std::vector<std::int64_t>{0, 1, 2, 10}, {2, 2})))}, ex_dataerr,
            "{tmp}/q.npy: query 1 2:10 is outside the 10 bins");
  histogram("missing_queries_file", "10", "0:100", {"--queries", "{tmp}/q.npy"}, {u8_samples}, ex_noinput,
            "{tmp}/q.npy: cannot open");
  histogram("int64_samples", "10", "0:100", {}, {file("in.npy", npy_text(array_of(std::vector<std::int64_t>{1, 2})))},
            ex_dataerr, "{tmp}/in.npy: dtype int64 is not supported (supported: uint8, uint16, int32, uint32, float32, float64)");
  histogram("int8_counter", "10", "0:100", {"--counter", "int8"}, {u8_samples}, ex_usage,
            "--counter must be uint32 or uint64, not 'int8'");
  histogram("unknown_counter", "10", "0:100", {"--counter", "bogus"}, {u8_samples}, ex_usage,
            "--counter must be uint32 or uint64, not 'bogus'");
  // Accepted by the option checks but not representable in the samples' level type: still a bad
  // --range (usage), not an internal error.
  histogram("range_collapsing_in_float32", "10", "1:1.00000001", {},
            {file("in.npy", npy_text(array_of(std::vector<float>{1.f})))}, ex_usage, "--range");
  histogram("range_times_bins_past_64_bits", "2", "-9000000000000000000:9000000000000000000", {},
            {file("in.npy", npy_text(array_of(std::vector<std::int32_t>{1})))}, ex_usage, "--range");
  t.add({"histogram_missing_bins", "histogram", {"-i", "{tmp}/in.npy", "--range", "0:256"}, {u8_samples}, ex_usage,
         "the option '--bins' is required"});
  t.add({"histogram_missing_range", "histogram", {"-i", "{tmp}/in.npy", "--bins", "4"}, {u8_samples}, ex_usage,
         "the option '--range' is required"});

  // Compact: every refusal comes before out.npy is written, and leaves an existing one alone. The
  // input-file rows are above, for every command that reads an array.
  const std::vector<std::string> positive = opts({"--predicate", "gt:0"});
  const std::vector<std::string> by_flags = opts({"--flags", "{tmp}/f.npy"});
  const auto flags = [](const std::string& contents) { return file("f.npy", contents); };
  const file_spec six_flags = flags(npy_text(array_of(std::vector<std::uint8_t>{1, 0, 1, 0, 0, 1})));
  t.compact("unknown_option", opts({"--predicate", "gt:0", "--frobnicate"}), {valid_input}, ex_usage,
            "unrecognised option '--frobnicate'");
  t.compact("bogus_backend", opts({"--predicate", "gt:0", "--backend", "bogus"}), {valid_input}, ex_usage,
            "--backend must be auto, gpu or cpu, not 'bogus'");
  t.compact("missing_input_option", {"--predicate", "gt:0"}, {valid_input}, ex_usage, "the option '--input' is required");
  t.add({"compact_missing_output_option", "compact", positive, {valid_input}, ex_usage, "the option '--output' is required"});
  t.compact("int8_values", positive, in(npy_text(array_of(std::vector<std::int8_t>{1, 2}))), ex_dataerr,
            "{tmp}/in.npy: dtype int8 is not supported (supported: int32, uint32, int64, uint64, float32, float64)");
  t.compact("bool_values_by_flags", by_flags,
            {file("in.npy", npy_with_header(npy_dict("|b1", "(6,)"), std::string(6, '\1'))), six_flags}, ex_dataerr,
            "{tmp}/in.npy: dtype bool is not supported");
  t.compact("raw_int16_values", {"-i", "{tmp}/in.bin", "--dtype", "int16", "--predicate", "gt:0"}, raw12, ex_dataerr,
            "{tmp}/in.bin: dtype int16 is not supported");

  // Which values to keep: exactly one of --flags and --predicate.
  t.compact("flags_and_predicate", opts({"--flags", "{tmp}/f.npy", "--predicate", "gt:0"}), {valid_input, six_flags},
            ex_usage, "give --flags or --predicate, not both");
  t.compact("neither_flags_nor_predicate", in_npy, {valid_input}, ex_usage,
            "which values to keep? give --flags F.npy or --predicate P");
  t.compact("predicate_without_value", opts({"--predicate"}), {valid_input}, ex_usage, "'--predicate'");
  const std::pair<std::string, std::string> bad_predicates[] = {
      {"between:1", "'between:1' is not a predicate (nonzero, gt:V, ge:V, lt:V, le:V, eq:V or ne:V)"},
      {"", "'' is not a predicate"},
      {"GT:1", "'GT:1' is not a predicate"},
      {"nonzero:1", "'nonzero:1' is not a predicate"},
      {"gt", "'gt' needs a value, as in gt:5"},
      {"ne", "'ne' needs a value, as in ne:5"},
      {"gt:", "'' is not a valid int32 value"},
      {"eq:abc", "'abc' is not a valid int32 value"},
      {"lt:1.5", "'1.5' is not a valid int32 value"},
      {"le:99999999999", "'99999999999' is not a valid int32 value"},
      {"ge:1:2", "'1:2' is not a valid int32 value"},
  };
  for (std::size_t i = 0; i < std::size(bad_predicates); ++i)
    t.compact("malformed_predicate_" + std::to_string(i), opts({"--predicate", bad_predicates[i].first}), {valid_input},
              ex_usage, "--predicate: " + bad_predicates[i].second);
  // The value is read as the input's dtype.
  t.compact("negative_value_for_uint32", opts({"--predicate", "ge:-1"}),
            in(npy_text(array_of(std::vector<std::uint32_t>{1, 2}))), ex_usage,
            "--predicate: '-1' is not a valid uint32 value");
  t.compact("value_beyond_float32", opts({"--predicate", "lt:1e39"}), in(npy_text(array_of(std::vector<float>{1.f}))),
            ex_usage, "--predicate: '1e39' is not a valid float32 value");

  // Flag files.
  t.compact("fewer_flags_than_values", by_flags,
            {valid_input, flags(npy_text(array_of(std::vector<std::uint8_t>{1, 0, 1, 0, 0})))}, ex_dataerr,
            "{tmp}/f.npy: flags of shape (5,) do not match the values' shape (6,) in {tmp}/in.npy");
  t.compact("more_flags_than_values", by_flags,
            {valid_input, flags(npy_text(array_of(std::vector<std::int64_t>{1, 0, 1, 0, 0, 1, 1})))}, ex_dataerr,
            "{tmp}/f.npy: flags of shape (7,) do not match the values' shape (6,) in {tmp}/in.npy");
  t.compact("flags_of_another_shape", by_flags,
            {valid_input, flags(npy_text(array_of(std::vector<std::uint8_t>{1, 0, 1, 0, 0, 1}, {2, 3})))}, ex_dataerr,
            "{tmp}/f.npy: flags of shape (2, 3) do not match the values' shape (6,) in {tmp}/in.npy");
  t.compact("float32_flags", by_flags, {valid_input, flags(npy_text(array_of(std::vector<float>(6, 1.f))))}, ex_dataerr,
            "{tmp}/f.npy: flags dtype float32 is not supported (supported: bool, int8, int16, int32, int64, uint8, "
            "uint16, uint32, uint64)");
  t.compact("float64_flags", by_flags, {valid_input, flags(npy_text(array_of(std::vector<double>(6, 1.0))))}, ex_dataerr,
            "{tmp}/f.npy: flags dtype float64 is not supported");
  t.compact("missing_flags", by_flags, {valid_input}, ex_noinput, "{tmp}/f.npy: cannot open");
  t.compact("malformed_flags", by_flags, {valid_input, flags("\x93NUMPX" + valid_input_npy.substr(6))}, ex_dataerr,
            "{tmp}/f.npy: not a .npy file: bad magic");
  t.compact("truncated_flags", by_flags,
            {valid_input, flags(npy_with_header(npy_dict("|u1", "(6,)"), std::string(4, '\1')))}, ex_dataerr,
            "{tmp}/f.npy: truncated data: header says 6 elements");
  const file_spec raw_flags = file("f.bin", std::string(6, '\1'));
  t.compact("raw_flags_without_dtype", opts({"--flags", "{tmp}/f.bin"}), {valid_input, raw_flags}, ex_usage,
            "{tmp}/f.bin: not a .npy file; give --flags-dtype to read it as raw elements");
  t.compact("float_flags_dtype", opts({"--flags", "{tmp}/f.bin", "--flags-dtype", "float32"}), {valid_input, raw_flags},
            ex_usage, "--flags-dtype: float32 is not a flags dtype (supported: bool,");
  t.compact("unknown_flags_dtype", opts({"--flags", "{tmp}/f.bin", "--flags-dtype", "int128"}), {valid_input, raw_flags},
            ex_usage, "--flags-dtype: unknown dtype 'int128'");
  t.compact("raw_flags_of_the_wrong_length", opts({"--flags", "{tmp}/f.bin", "--flags-dtype", "int16"}),
            {valid_input, raw_flags}, ex_dataerr,
            "{tmp}/f.bin: flags of shape (3,) do not match the values' shape (6,) in {tmp}/in.npy");
  t.compact("flags_dtype_for_npy_flags", opts({"--flags", "{tmp}/f.npy", "--flags-dtype", "uint8"}),
            {valid_input, six_flags}, ex_usage, "--flags-dtype applies to raw input only; {tmp}/f.npy is a .npy file");
  t.compact("flags_dtype_without_flags", opts({"--predicate", "gt:0", "--flags-dtype", "uint8"}), {valid_input}, ex_usage,
            "--flags-dtype applies to --flags only");
  t.add({"compact_output_is_flags", "compact", {"-i", "{tmp}/in.npy", "-o", "{tmp}/f.npy", "--flags", "{tmp}/f.npy"},
         {valid_input, six_flags}, ex_cantcreat, "output path is the same file as input"});

  // Sort: every refusal comes before out.npy is written, and leaves an existing one alone; rows with
  // values also leave an existing sv.npy alone. The input-file rows are above.
  t.sort("unknown_option", opts({"--frobnicate"}), {valid_input}, ex_usage, "unrecognised option '--frobnicate'");
  t.sort("bogus_backend", opts({"--backend", "bogus"}), {valid_input}, ex_usage,
         "--backend must be auto, gpu or cpu, not 'bogus'");
  t.sort("missing_input_option", {}, {valid_input}, ex_usage, "the option '--input' is required");
  t.add({"sort_missing_output_option", "sort", in_npy, {valid_input}, ex_usage, "the option '--output' is required"});
  const std::string sort_keys = "(supported: uint8, uint16, uint32, int32, float32, uint64, int64, float64)";
  t.sort("int8_keys", in_npy, in(npy_text(array_of(std::vector<std::int8_t>{1, 2}))), ex_dataerr,
         "{tmp}/in.npy: dtype int8 is not supported " + sort_keys);
  t.sort("int16_keys", in_npy, in(npy_text(array_of(std::vector<std::int16_t>{1, 2}))), ex_dataerr,
         "{tmp}/in.npy: dtype int16 is not supported " + sort_keys);
  t.sort("bool_keys", in_npy, in(npy_with_header(npy_dict("|b1", "(2,)"), std::string("\1\0", 2))), ex_dataerr,
         "{tmp}/in.npy: dtype bool is not supported " + sort_keys);
  t.sort("raw_int16_keys", {"-i", "{tmp}/in.bin", "--dtype", "int16"}, raw12, ex_dataerr,
         "{tmp}/in.bin: dtype int16 is not supported " + sort_keys);

  // Values: of 4 or 8 bytes, as many as the keys and of their shape, read and written only in pairs.
  const file_spec existing_values_output = file("sv.npy", npy_text(array_of(std::vector<float>{7.f})));
  const auto paired = [&](const std::string& name, const std::vector<std::string>& extra, std::vector<file_spec> files,
                          int code, const std::string& message) {
    files.push_back(existing_values_output);
    t.sort(name, opts(extra), files, code, message);
  };
  const std::vector<std::string> with_values{"--values", "{tmp}/v.npy", "--values-output", "{tmp}/sv.npy"};
  const auto values = [](const std::string& contents) { return file("v.npy", contents); };
  const file_spec six_values = values(npy_text(array_of(std::vector<std::int64_t>{0, 1, 2, 3, 4, 5})));
  const std::string value_types = "(supported: any dtype of 4 or 8 bytes: int32, uint32, float32, int64, uint64, float64)";
  paired("int16_values", with_values, {valid_input, values(npy_text(array_of(std::vector<std::int16_t>(6, 1))))},
         ex_dataerr, "{tmp}/v.npy: values dtype int16 is not supported " + value_types);
  paired("uint8_values", with_values, {valid_input, values(npy_text(array_of(std::vector<std::uint8_t>(6, 1))))},
         ex_dataerr, "{tmp}/v.npy: values dtype uint8 is not supported " + value_types);
  paired("bool_values", with_values,
         {valid_input, values(npy_with_header(npy_dict("|b1", "(6,)"), std::string(6, '\1')))}, ex_dataerr,
         "{tmp}/v.npy: values dtype bool is not supported");
  paired("fewer_values_than_keys", with_values,
         {valid_input, values(npy_text(array_of(std::vector<std::int64_t>{0, 1, 2, 3, 4})))}, ex_dataerr,
         "{tmp}/v.npy: values of shape (5,) do not match the keys' shape (6,) in {tmp}/in.npy");
  paired("more_values_than_keys", with_values,
         {valid_input, values(npy_text(array_of(std::vector<float>(7, 1.f))))}, ex_dataerr,
         "{tmp}/v.npy: values of shape (7,) do not match the keys' shape (6,) in {tmp}/in.npy");
  paired("values_of_another_shape", with_values,
         {valid_input, values(npy_text(array_of(std::vector<std::int32_t>(6, 1), {2, 3})))}, ex_dataerr,
         "{tmp}/v.npy: values of shape (2, 3) do not match the keys' shape (6,) in {tmp}/in.npy");
  paired("missing_values", with_values, {valid_input}, ex_noinput, "{tmp}/v.npy: cannot open");
  paired("malformed_values", with_values, {valid_input, values("\x93NUMPX" + valid_input_npy.substr(6))}, ex_dataerr,
         "{tmp}/v.npy: not a .npy file: bad magic");
  const std::vector<std::string> raw_values{"--values", "{tmp}/v.bin", "--values-output", "{tmp}/sv.npy"};
  const file_spec raw_values_file = file("v.bin", int32_data(3));
  paired("raw_values_without_dtype", raw_values, {valid_input, raw_values_file}, ex_usage,
         "{tmp}/v.bin: not a .npy file; give --values-dtype to read it as raw elements");
  paired("unknown_values_dtype", {"--values", "{tmp}/v.bin", "--values-output", "{tmp}/sv.npy", "--values-dtype", "int128"},
         {valid_input, raw_values_file}, ex_usage, "--values-dtype: unknown dtype 'int128'");
  paired("raw_values_of_the_wrong_length",
         {"--values", "{tmp}/v.bin", "--values-output", "{tmp}/sv.npy", "--values-dtype", "int32"},
         {valid_input, raw_values_file}, ex_dataerr,
         "{tmp}/v.bin: values of shape (3,) do not match the keys' shape (6,) in {tmp}/in.npy");
  paired("values_dtype_for_npy_values",
         {"--values", "{tmp}/v.npy", "--values-output", "{tmp}/sv.npy", "--values-dtype", "int64"},
         {valid_input, six_values}, ex_usage, "--values-dtype applies to raw input only; {tmp}/v.npy is a .npy file");
  paired("values_dtype_without_values", {"--values-dtype", "int64"}, {valid_input}, ex_usage,
         "--values-dtype applies to --values only");
  paired("values_without_values_output", {"--values", "{tmp}/v.npy"}, {valid_input, six_values}, ex_usage,
         "--values needs --values-output");
  paired("values_output_without_values", {"--values-output", "{tmp}/sv.npy"}, {valid_input}, ex_usage,
         "--values-output needs --values");

  // Bit ranges of the keys' order-preserving pattern. "--bits=-1:8", so that a negative B is not taken for
  // an option; "--bits ''", since Boost refuses "--bits=" itself.
  const auto bits = [&](const std::string& name, const std::string& range, const file_spec& keys,
                         const std::string& message) {
    const bool negative = !range.empty() && range[0] == '-';
    const std::vector<std::string> option = negative ? std::vector<std::string>{"--bits=" + range}
                                                     : std::vector<std::string>{"--bits", range};
    t.sort("bits_" + name, opts(option), {keys}, ex_usage, message);
  };
  const std::string int32_bits = "is not a range of the 32 bits of int32 keys (needs 0 <= B < E <= 32)";
  bits("past_the_key", "0:33", valid_input, "--bits 0:33 " + int32_bits);
  bits("empty", "8:8", valid_input, "--bits 8:8 " + int32_bits);
  bits("reversed", "9:8", valid_input, "--bits 9:8 " + int32_bits);
  bits("negative", "-1:8", valid_input, "--bits -1:8 " + int32_bits);
  bits("starting_past_the_key", "32:33", valid_input, "--bits 32:33 " + int32_bits);
  bits("past_a_uint8_key", "0:9", file("in.npy", npy_text(array_of(std::vector<std::uint8_t>{1, 2}))),
       "--bits 0:9 is not a range of the 8 bits of uint8 keys (needs 0 <= B < E <= 8)");
  bits("past_a_float64_key", "0:65", file("in.npy", npy_text(array_of(std::vector<double>{1.0}))),
       "--bits 0:65 is not a range of the 64 bits of float64 keys (needs 0 <= B < E <= 64)");
  const std::vector<std::string> malformed_bits{"x", "8", "8:", ":8", "1:2:3", "1:2x", "", " 1:2", "+1:2", "0:99999999999"};
  for (std::size_t i = 0; i < malformed_bits.size(); ++i)
    bits("malformed_" + std::to_string(i), malformed_bits[i], valid_input,
         "--bits must be B:E, not '" + malformed_bits[i] + "'");
  t.sort("bits_without_value", opts({"--bits"}), {valid_input}, ex_usage, "'--bits'");

  // Output paths: neither output may be an input, nor the two outputs one file. Refused before
  // anything is read; a values output that cannot be created leaves the keys' output unwritten too.
  paired("values_output_is_values", {"--values", "{tmp}/v.npy", "--values-output", "{tmp}/v.npy"},
         {valid_input, six_values}, ex_cantcreat, "output path is the same file as input {tmp}/v.npy");
  paired("values_output_is_keys", {"--values", "{tmp}/v.npy", "--values-output", "{tmp}/in.npy"},
         {valid_input, six_values}, ex_cantcreat, "output path is the same file as input {tmp}/in.npy");
  paired("values_output_is_output", {"--values", "{tmp}/v.npy", "--values-output", "{tmp}/out.npy"},
         {valid_input, six_values}, ex_cantcreat,
         "{tmp}/out.npy: --values-output is the same file as --output; refusing to write both there");
  paired("values_output_is_output_spelled_differently", {"--values", "{tmp}/v.npy", "--values-output", "{tmp}/./out.npy"},
         {valid_input, six_values}, ex_cantcreat, "--values-output is the same file as --output");
  paired("values_output_in_missing_directory", {"--values", "{tmp}/v.npy", "--values-output", "{tmp}/nowhere/sv.npy"},
         {valid_input, six_values}, ex_cantcreat,
         "{tmp}/nowhere/sv.npy: cannot create: directory {tmp}/nowhere does not exist");
  paired("values_output_is_directory", {"--values", "{tmp}/v.npy", "--values-output", "{tmp}/outdir"},
         {valid_input, six_values, directory("outdir")}, ex_cantcreat, "{tmp}/outdir: cannot create: is a directory");
  t.add({"sort_output_is_values", "sort",
         {"-i", "{tmp}/in.npy", "-o", "{tmp}/v.npy", "--values", "{tmp}/v.npy", "--values-output", "{tmp}/sv.npy"},
         {valid_input, six_values}, ex_cantcreat, "output path is the same file as input {tmp}/v.npy"});

  t.add({"unknown_command", "frobnicate", {}, {}, ex_usage, "unknown command 'frobnicate'"});
  return std::move(t).rows();
}

class CliBadInput : public CliBadInputTest {};

TEST_P(CliBadInput, FailsWithOneLineAndLeavesFilesAlone) { check_row_fails_cleanly(); }

INSTANTIATE_TEST_SUITE_P(Table, CliBadInput, ::testing::ValuesIn(bad_runs()),
                         [](const ::testing::TestParamInfo<bad_run>& row) { return row.param.name; });

TEST_F(CliTest, NoCommandPrintsUsageAndFails) {
  const run_result r = run({});
  EXPECT_EQ(r.exit_code, ex_usage) << r;
  EXPECT_EQ(r.out, "") << r;
  EXPECT_TRUE(contains(r.err, "usage: lookback")) << r;
}

// --- good runs -----------------------------------------------------------------------------

TEST_F(CliTest, ReducePrintsTheResult) {
  write_input("in.npy", array_of(small_values));
  const std::pair<const char*, const char*> cases[] = {{"sum", small_sum}, {"min", "-5"}, {"max", "9"}};
  for (const auto& [op, expected] : cases) {
    SCOPED_TRACE(op);
    EXPECT_EQ(run_ok({"reduce", "-i", arg("in.npy"), "--op", op}).out, std::string(expected) + "\n");
  }
  EXPECT_EQ(run_ok({"reduce", "-i", arg("in.npy")}).out, std::string(small_sum) + "\n");  // sum is the default
}

TEST_F(CliTest, ReduceOfFloat64PrintsTheExactDouble) {
  write_input("in.npy", array_of(std::vector<double>{0.1, 0.2, 0.3}));
  const run_result r = run_ok({"reduce", "-i", arg("in.npy")});
  const auto lines = lines_of(r.out);
  ASSERT_FALSE(lines.empty()) << r;
  char* end = nullptr;
  const double printed = std::strtod(lines[0].c_str(), &end);
  EXPECT_EQ(*end, '\0') << r;
  EXPECT_EQ(printed, (0.1 + 0.2) + 0.3) << r;  // bit for bit: 17 significant digits are printed
}

TEST_F(CliTest, ArrayOutputToANamedPipeIsRefusedBeforeAnythingIsWritten) {
  // The items go out at their offsets, which a pipe refuses; refused before the pipe is opened, which
  // would wait for a reader.
  write_input("in.npy", array_of(small_values));
  ASSERT_EQ(::mkfifo(path("pipe.npy").c_str(), 0600), 0) << std::strerror(errno);
  const run_result r = run_cpu({"scan", "-i", arg("in.npy"), "-o", arg("pipe.npy")});
  EXPECT_EQ(r.exit_code, ex_cantcreat) << r;
  EXPECT_TRUE(contains(r.err, arg("pipe.npy") + ": cannot write to a pipe")) << r;
  EXPECT_TRUE(fs::is_fifo(path("pipe.npy")));
}
TEST_F(CliTest, ReduceOfAnEmptyArrayPrintsTheIdentity) {
  write_input("in.npy", array_of(std::vector<std::int32_t>{}));
  EXPECT_EQ(run_ok({"reduce", "-i", arg("in.npy")}).out, "0\n");
  EXPECT_EQ(run_ok({"reduce", "-i", arg("in.npy"), "--op", "max"}).out, "-2147483648\n");
}

TEST_F(CliTest, ReduceWritesAOneElementArray) {
  write_input("in.npy", array_of(small_values));
  const run_result r = run_ok({"reduce", "-i", arg("in.npy"), "--op", "max", "-o", arg("r.npy")});
  EXPECT_EQ(lines_of(r.out).at(0), "9");
  const host_array out = read_output("r.npy");
  EXPECT_EQ(out.shape, std::vector<std::int64_t>{1});
  EXPECT_EQ(elements<std::int32_t>(out), std::vector<std::int32_t>{9});

  run_ok({"reduce", "-i", arg("in.npy"), "-o", arg("r.bin")});
  EXPECT_EQ(read_file(path("r.bin")), bytes_of(std::vector<std::int32_t>{11}));
}

TEST_F(CliTest, ScanWritesTheRightArray) {
  constexpr std::int32_t lowest = std::numeric_limits<std::int32_t>::min();
  const struct {
    std::vector<std::string> options;
    std::vector<std::int32_t> expected;
  } cases[] = {
      {{}, {0, 3, 2, 6, 7, 2}},
      {{"--inclusive"}, {3, 2, 6, 7, 2, 11}},
      {{"--init", "10"}, {10, 13, 12, 16, 17, 12}},
      {{"--init", "-7"}, {-7, -4, -5, -1, 0, -5}},
      {{"--op", "max", "--inclusive"}, {3, 3, 4, 4, 4, 9}},
      {{"--op", "max"}, {lowest, 3, 3, 4, 4, 4}},
      {{"--op", "min", "--init", "0"}, {0, 0, -1, -1, -1, -5}},
  };
  write_input("in.npy", array_of(small_values));
  for (const auto& c : cases) {
    std::vector<std::string> args{"scan", "-i", arg("in.npy"), "-o", arg("out.npy")};
    args.insert(args.end(), c.options.begin(), c.options.end());
    SCOPED_TRACE(::testing::PrintToString(args));
    const run_result r = run_ok(args);
    EXPECT_TRUE(contains(r.out, "of 6 int32 elements")) << r;
    const host_array out = read_output("out.npy");
    EXPECT_EQ(out.shape, std::vector<std::int64_t>{6});
    EXPECT_EQ(elements<std::int32_t>(out), c.expected);
  }
}

TEST_F(CliTest, ScanKeepsDtypeAndShape) {
  write_input("in.npy", array_of(std::vector<double>{0.5, 1.5, -2.0, 4.0, 0.25, 1.0}, {2, 3}));
  run_ok({"scan", "-i", arg("in.npy"), "-o", arg("out.npy"), "--inclusive"});
  const host_array out = read_output("out.npy");
  EXPECT_EQ(out.shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(elements<double>(out), (std::vector<double>{0.5, 2.0, 0.0, 4.0, 4.25, 5.25}));

  write_input("u64.npy", array_of(std::vector<std::uint64_t>{~0ull, 2}));
  run_ok({"scan", "-i", arg("u64.npy"), "-o", arg("u64.out.npy"), "--inclusive"});
  EXPECT_EQ(elements<std::uint64_t>(read_output("u64.out.npy")), (std::vector<std::uint64_t>{~0ull, 1}));
}

TEST_F(CliTest, ScanOfAnEmptyArray) {
  write_input("in.npy", array_of(std::vector<float>{}));
  run_ok({"scan", "-i", arg("in.npy"), "-o", arg("out.npy")});
  const host_array out = read_output("out.npy");
  EXPECT_EQ(out.type, dtype::float32);
  EXPECT_EQ(out.shape, std::vector<std::int64_t>{0});
}

TEST_F(CliTest, ScanReplacesAnExistingOutput) {
  write_input("in.npy", array_of(small_values));
  write_file(path("out.npy"), "stale");
  run_ok({"scan", "-i", arg("in.npy"), "-o", arg("out.npy"), "--inclusive"});
  EXPECT_EQ(elements<std::int32_t>(read_output("out.npy")), (std::vector<std::int32_t>{3, 2, 6, 7, 2, 11}));
  EXPECT_EQ(names_of(snapshot(dir_)), (std::set<std::string>{"in.npy", "out.npy"}));  // no temporaries left
}

// A replaced output keeps its permissions: a private file stays private.
TEST_F(CliTest, AReplacedOutputKeepsItsMode) {
  write_input("in.npy", array_of(small_values));
  write_file(path("out.npy"), "stale");
  fs::permissions(path("out.npy"), fs::perms::owner_read | fs::perms::owner_write);
  run_ok({"scan", "-i", arg("in.npy"), "-o", arg("out.npy")});
  EXPECT_EQ(fs::status(path("out.npy")).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(read_output("out.npy").size(), std::int64_t{6});
}

// Two outputs naming one new file, one through a link whose target does not exist yet: refused, as the
// same name twice is, before anything is written (the values had replaced the keys).
TEST_F(CliTest, SortRefusesTwoOutputsThatAreOneFileThroughADanglingLink) {
  write_input("in.npy", array_of(small_values));
  write_input("v.npy", array_of(small_values));
  fs::create_symlink("sorted.npy", dir_ / "order.npy");
  const run_result r = run({"sort", "-i", arg("in.npy"), "-o", arg("sorted.npy"), "--values", arg("v.npy"),
                            "--values-output", arg("order.npy")});
  EXPECT_EQ(r.exit_code, ex_cantcreat) << r;
  expect_one_error_line(r, "lookback sort: ", "--values-output is the same file as --output");
  EXPECT_FALSE(fs::exists(path("sorted.npy")));
  EXPECT_TRUE(fs::is_symlink(path("order.npy")));
}

TEST_F(CliTest, RawInputAndOutput) {
  write_file(path("in.bin"), bytes_of(std::vector<std::int64_t>{5, -2, 7}));
  for (const char* type : {"int64", "i8"}) {
    SCOPED_TRACE(type);
    run_ok({"scan", "-i", arg("in.bin"), "--dtype", type, "-o", arg("out.bin"), "--inclusive"});
    EXPECT_EQ(read_file(path("out.bin")), bytes_of(std::vector<std::int64_t>{5, 3, 10}));
    EXPECT_EQ(run_ok({"reduce", "-i", arg("in.bin"), "--dtype", type, "--op", "min"}).out, "-2\n");
  }
  // Raw in, .npy out: the output records the dtype the user named.
  run_ok({"scan", "-i", arg("in.bin"), "--dtype", "int64", "-o", arg("out.npy")});
  EXPECT_EQ(elements<std::int64_t>(read_output("out.npy")), (std::vector<std::int64_t>{0, 5, 3}));
}

// A result that never reached its reader is a failure, however it was computed: think of
// `lookback reduce ... > result.txt` on a full disk.
TEST_F(CliTest, ReduceReportsAFailedWriteToStdout) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full on this system";
  write_input("in.npy", array_of(small_values));
  const run_result r = run_lookback({"reduce", "--backend", "cpu", "-i", arg("in.npy")}, dir_, "/dev/full");
  EXPECT_EQ(r.exit_code, ex_ioerr) << r;
  expect_one_error_line(r, "lookback reduce: ", "");
}

TEST_F(CliTest, HelpGoesToStdout) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"--help"}, {"reduce", "--help"}, {"scan", "--help"}, {"demo", "--help"}}) {
    SCOPED_TRACE(::testing::PrintToString(args));
    const run_result r = run(args);
    EXPECT_EQ(r.exit_code, ex_ok) << r;
    EXPECT_EQ(r.err, "") << r;
    EXPECT_EQ(r.out.rfind("usage: lookback", 0), 0u) << r;
  }
}

// Each command's usage line names every option of its own (the common ones are listed once, in
// lookback help), so that the short form a user reads first leaves nothing out.
TEST_F(CliTest, UsageLinesNameEveryOptionOfTheirCommand) {
  const std::set<std::string> common{"help", "backend", "verify", "dtype", "device-memory-limit", "host-memory-limit"};
  const std::regex option(R"(^  (-[a-z] \[ )?--([a-z0-9-]+))");
  for (const char* command : {"reduce", "scan", "histogram", "compact", "sort", "ladder", "conv2d", "sat", "boxfilter",
                              "fir", "demo"}) {
    SCOPED_TRACE(command);
    const run_result r = run({command, "--help"});
    ASSERT_EQ(r.exit_code, ex_ok) << r;
    const std::vector<std::string> lines = lines_of(r.out);
    ASSERT_FALSE(lines.empty()) << r;
    const std::string& usage = lines.front();
    int options = 0;
    for (const std::string& line : lines) {
      std::smatch m;
      if (!std::regex_search(line, m, option) || common.count(m[2]) != 0) continue;
      ++options;
      // Whole names only: --values must not pass on --values-output's account.
      const std::string named = m[1].matched ? m[1].str().substr(0, 2) + " " : "--" + m[2].str();
      EXPECT_TRUE(std::regex_search(usage, std::regex(named + "(?![a-z0-9-])"))) << named << " is missing from: " << usage;
    }
    EXPECT_GT(options, 0) << r;
  }
}

TEST_F(CliTest, Version) {
  const run_result r = run({"--version"});
  EXPECT_EQ(r.exit_code, ex_ok) << r;
  EXPECT_EQ(r.err, "") << r;
  EXPECT_EQ(r.out.rfind("lookback ", 0), 0u) << r;
  EXPECT_EQ(lines_of(r.out).size(), 1u) << r;
}

/// Both sums element by element against a running total formed here: exact (wrapping as the command's
/// do) for integers; for floats against a long double total, within 4 sqrt(n) roundings of the magnitudes
/// summed so far (the CPU backend's sequential sums of the samples stay within 16, a tree's within
/// fewer), tight enough that a term dropped or counted twice shows.
template <class T>
void expect_scans_agree(const host_array& input, const host_array& exclusive, const host_array& inclusive) {
  const auto in = elements<T>(input), ex = elements<T>(exclusive), inc = elements<T>(inclusive);
  ASSERT_EQ(ex.size(), in.size());
  ASSERT_EQ(inc.size(), in.size());
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    U total = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
      ASSERT_EQ(static_cast<U>(ex[i]), total) << "exclusive element " << i;
      total = static_cast<U>(total + static_cast<U>(in[i]));
      ASSERT_EQ(static_cast<U>(inc[i]), total) << "inclusive element " << i;
    }
  } else {
    const long double roundings = 4 * std::sqrt(static_cast<long double>(in.size())) * std::numeric_limits<T>::epsilon();
    long double total = 0, mass = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
      ASSERT_LE(std::fabs(static_cast<long double>(ex[i]) - total), roundings * mass) << "exclusive element " << i;
      total += in[i];
      mass += std::fabs(static_cast<long double>(in[i]));
      ASSERT_LE(std::fabs(static_cast<long double>(inc[i]) - total), roundings * mass) << "inclusive element " << i;
    }
  }
}

// The values of `a` above zero, in order, as the bytes compact writes.
template <class T>
std::string positive_bytes(const host_array& a) {
  std::vector<T> kept;
  for (const T x : elements<T>(a))
    if (x > T(0)) kept.push_back(x);
  return bytes_of(kept);
}

// The sample dtypes, as C++ types.
template <class F>
decltype(auto) visit_sample(dtype type, F&& f) {
  switch (type) {
    case dtype::uint32: return f(std::uint32_t{});
    case dtype::int64: return f(std::int64_t{});
    case dtype::float32: return f(float{});
    case dtype::float64: return f(double{});
    default: throw std::runtime_error("a sample of a dtype this test does not know");
  }
}

std::string positive_bytes_of(const host_array& a) {
  return visit_sample(a.type, [&](auto zero) { return positive_bytes<decltype(zero)>(a); });
}

// `sorted` holds the input's values ascending and `order` where each stood: a permutation under which
// equal values keep their input order. (The samples hold no NaN, so < orders them.)
template <class T>
void expect_stable_argsort(const host_array& input, const host_array& sorted, const host_array& order) {
  const auto in = elements<T>(input), keys = elements<T>(sorted);
  const auto from = elements<std::int64_t>(order);
  ASSERT_EQ(keys.size(), in.size());
  ASSERT_EQ(from.size(), in.size());
  std::vector<bool> seen(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    ASSERT_TRUE(from[i] >= 0 && static_cast<std::size_t>(from[i]) < in.size() && !seen[from[i]]) << "position " << i;
    seen[from[i]] = true;
    ASSERT_EQ(std::memcmp(&keys[i], &in[from[i]], sizeof(T)), 0) << "position " << i;
    if (i > 0) ASSERT_TRUE(keys[i - 1] < keys[i] || (keys[i - 1] == keys[i] && from[i - 1] < from[i])) << "position " << i;
  }
}

// An output the demo would write that is, through a link left in the output folder, one of its data
// files: refused, and the data file stays as it was.
TEST_F(CliTest, DemoNeverWritesIntoItsDataThroughALink) {
  fs::create_directory(dir_ / "data");
  write_input("data/a.npy", array_of(small_values));
  const std::string before = read_file(path("data/a.npy"));
  fs::create_directory(dir_ / "out");
  fs::create_symlink("../data/a.npy", dir_ / "out" / "a.inclusive_sum.npy");
  const run_result r = run_cpu({"demo", "--data-dir", arg("data"), "--output-dir", arg("out")});
  EXPECT_EQ(r.exit_code, ex_cantcreat) << r;
  expect_one_error_line(r, "lookback demo: ", "refusing to overwrite an input");
  EXPECT_EQ(read_file(path("data/a.npy")), before);
}

TEST_F(CliTest, DemoWritesTheScansPositivesAndSortsOfEverySample) {
  if (*sample_data_dir == '\0') GTEST_SKIP() << "LOOKBACK_DATA_DIR is not defined";
  std::vector<fs::path> samples;
  for (const auto& e : fs::directory_iterator(sample_data_dir))
    if (e.path().extension() == ".npy") samples.push_back(e.path());
  ASSERT_EQ(samples.size(), 4u) << "the sample set changed; update this test";

  const run_result r = run_ok({"demo", "--data-dir", sample_data_dir, "--output-dir", arg("demo/out")});
  std::set<std::string> expected_names;
  for (const fs::path& sample : samples) {
    const std::string stem = sample.stem().string();
    SCOPED_TRACE(stem);
    expected_names.insert(stem + ".exclusive_sum.npy");
    expected_names.insert(stem + ".inclusive_sum.npy");
    expected_names.insert(stem + ".positive.npy");
    expected_names.insert(stem + ".sorted.npy");
    expected_names.insert(stem + ".sort_order.npy");
    EXPECT_TRUE(contains(r.out, sample.filename().string())) << r;

    const host_array input = lookback::io::read_npy(sample);
    const host_array exclusive = read_output("demo/out/" + stem + ".exclusive_sum.npy");
    const host_array inclusive = read_output("demo/out/" + stem + ".inclusive_sum.npy");
    for (const host_array* out : {&exclusive, &inclusive}) {
      EXPECT_EQ(out->type, input.type);
      EXPECT_EQ(out->size(), input.size());
    }
    if (input.type == dtype::int64) expect_scans_agree<std::int64_t>(input, exclusive, inclusive);
    if (input.type == dtype::uint32) expect_scans_agree<std::uint32_t>(input, exclusive, inclusive);
    if (input.type == dtype::float32) expect_scans_agree<float>(input, exclusive, inclusive);
    if (input.type == dtype::float64) expect_scans_agree<double>(input, exclusive, inclusive);

    const host_array positive = read_output("demo/out/" + stem + ".positive.npy");
    EXPECT_EQ(positive.type, input.type);
    const std::string expected_bytes = positive_bytes_of(input);
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(positive.bytes.data()), positive.bytes.size()), expected_bytes);
    const std::size_t count = expected_bytes.size() / lookback::io::dtype_size(input.type);
    const std::string kept = "compact gt:0: kept " + std::to_string(count) + " of " + std::to_string(input.size()) + " -> ";
    EXPECT_TRUE(contains(r.out, kept)) << kept << "\n" << r;

    const host_array sorted = read_output("demo/out/" + stem + ".sorted.npy");
    const host_array order = read_output("demo/out/" + stem + ".sort_order.npy");
    EXPECT_EQ(sorted.type, input.type);
    EXPECT_EQ(order.type, dtype::int64);
    visit_sample(input.type, [&](auto zero) { expect_stable_argsort<decltype(zero)>(input, sorted, order); });
    const std::string sort_step = "sort ascending -> " + path("demo/out/" + stem + ".sorted.npy").string() +
                                  ", positions -> " + path("demo/out/" + stem + ".sort_order.npy").string();
    EXPECT_TRUE(contains(r.out, sort_step)) << sort_step << "\n" << r;
  }
  // The recordings' filtered copies (test_cli_fir.cpp checks them).
  for (const auto& e : fs::directory_iterator(sample_data_dir))
    if (e.path().extension() == ".wav") expected_names.insert(e.path().stem().string() + ".lowpass_1khz.wav");
  // The images' filtered copies and tables (test_cli_image.cpp checks the commands behind them).
  for (const auto& e : fs::directory_iterator(sample_data_dir))
    if (e.path().extension() == ".png")
      for (const char* suffix : {".gaussian.png", ".sat.npy", ".box5.png"})
        expected_names.insert(e.path().stem().string() + suffix);
  EXPECT_EQ(names_of(snapshot(path("demo/out"))), expected_names);
}

// --- histogram ----------------------------------------------------------------------------------

// Even bins of integer samples, exactly: floor((x - lower) * bins / (upper - lower)).
template <class T>
std::vector<std::uint64_t> integer_histogram(const std::vector<T>& xs, std::int64_t lower, std::int64_t upper, int bins) {
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(bins));
  for (const T value : xs) {
    const auto x = static_cast<std::int64_t>(value);
    if (x >= lower && x < upper) ++counts[static_cast<std::size_t>((x - lower) * bins / (upper - lower))];
  }
  return counts;
}

std::uint64_t sum_of(const std::vector<std::uint64_t>& counts, std::size_t first, std::size_t last) {
  std::uint64_t sum = 0;
  for (std::size_t i = first; i <= last; ++i) sum += counts[i];
  return sum;
}

template <class To>
std::vector<To> converted(const std::vector<std::uint64_t>& counts) {
  return std::vector<To>(counts.begin(), counts.end());
}

TEST_F(CliTest, HistogramWritesTheCountsAndASummary) {
  const std::vector<std::uint8_t> samples{0, 1, 1, 9, 10, 99, 100, 255, 50};
  write_input("in.npy", array_of(samples));
  const auto expected = integer_histogram(samples, 0, 100, 10);
  ASSERT_EQ(expected, (std::vector<std::uint64_t>{4, 1, 0, 0, 0, 1, 0, 0, 0, 1}));

  const run_result r = run_ok({"histogram", "-i", arg("in.npy"), "--bins", "10", "--range", "0:100", "-o", arg("h.npy")});
  ASSERT_EQ(lines_of(r.out).size(), 1u) << r;
  EXPECT_TRUE(contains(r.out, "9 uint8 samples into 10 bins")) << r;
  EXPECT_TRUE(contains(r.out, "7 counted, 2 dropped")) << r;
  const host_array h = read_output("h.npy");
  EXPECT_EQ(h.shape, std::vector<std::int64_t>{10});
  EXPECT_EQ(elements<std::uint64_t>(h), expected);  // uint64 counters by default

  for (const auto& [counter, file_name] : {std::pair<const char*, const char*>{"uint32", "h32.npy"}, {"uint64", "h64.npy"}}) {
    SCOPED_TRACE(counter);
    run_ok({"histogram", "-i", arg("in.npy"), "--bins", "10", "--range", "0:100", "--counter", counter, "-o", arg(file_name)});
    const host_array out = read_output(file_name);
    if (std::string(counter) == "uint32")
      EXPECT_EQ(elements<std::uint32_t>(out), converted<std::uint32_t>(expected));
    else
      EXPECT_EQ(elements<std::uint64_t>(out), expected);
  }
}

TEST_F(CliTest, HistogramOfIntegersWithANegativeLowerLevel) {
  constexpr std::int32_t lowest = std::numeric_limits<std::int32_t>::min(), highest = std::numeric_limits<std::int32_t>::max();
  const std::vector<std::int32_t> samples{-10, -6, -5, 0, 9, 10, lowest, highest, -11};
  write_input("in.npy", array_of(samples));
  const run_result r = run_ok({"histogram", "-i", arg("in.npy"), "--bins", "4", "--range=-10:10", "-o", arg("h.npy")});
  EXPECT_TRUE(contains(r.out, "5 counted, 4 dropped")) << r;
  EXPECT_EQ(elements<std::uint64_t>(read_output("h.npy")), integer_histogram(samples, -10, 10, 4));
  EXPECT_EQ(integer_histogram(samples, -10, 10, 4), (std::vector<std::uint64_t>{2, 1, 1, 1}));
}

// NaN, infinities and upper itself are dropped, lower is counted; the bin edges avoided here are
// where the float scale may round either way.
TEST_F(CliTest, HistogramOfFloatsDropsNanInfinityAndUpper) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> values{-1.5, 2.25, nan, inf, 0.0, 1.1, 2.2, -inf};
  // [-1.5, 2.25) in 3 bins of 1.25: -1.5 and 0 in bins 0 and 1, 1.1 and 2.2 in bin 2.
  const std::vector<std::uint64_t> expected{1, 1, 2};
  write_input("f64.npy", array_of(values));
  write_input("f32.npy", array_of(std::vector<float>(values.begin(), values.end())));
  for (const char* name : {"f64.npy", "f32.npy"}) {
    SCOPED_TRACE(name);
    const run_result r = run_ok({"histogram", "-i", arg(name), "--bins", "3", "--range=-1.5:2.25", "-o", arg("h.npy")});
    EXPECT_TRUE(contains(r.out, "4 counted, 4 dropped")) << r;
    EXPECT_EQ(elements<std::uint64_t>(read_output("h.npy")), expected);
  }
}

TEST_F(CliTest, HistogramOfAnEmptyArray) {
  write_input("in.npy", array_of(std::vector<std::uint16_t>{}));
  const run_result r = run_ok({"histogram", "-i", arg("in.npy"), "--bins", "3", "--range", "0:3", "-o", arg("h.npy"),
                               "--query", "0:2"});
  EXPECT_TRUE(contains(r.out, "0 counted, 0 dropped")) << r;
  EXPECT_NE(lines_of(r.out).back().find("bins 0..2: 0"), std::string::npos) << r;
  EXPECT_EQ(elements<std::uint64_t>(read_output("h.npy")), (std::vector<std::uint64_t>{0, 0, 0}));
}

// --query answers come first, in their order, then the --queries file's rows.
TEST_F(CliTest, HistogramAnswersRangeQueries) {
  std::vector<std::uint16_t> samples;
  for (std::uint16_t x = 0; x < 100; ++x) samples.push_back(x);
  samples.insert(samples.end(), {42, 42, 42, 42, 42, 500});
  write_input("in.npy", array_of(samples));
  const auto counts = integer_histogram(samples, 0, 100, 10);
  write_input("q32.npy", array_of(std::vector<std::int32_t>{0, 0, 3, 4, 9, 9}, {3, 2}));
  write_input("q64.npy", array_of(std::vector<std::int64_t>{2, 7}, {1, 2}));

  for (const char* file_name : {"q32.npy", "q64.npy"}) {
    SCOPED_TRACE(file_name);
    const run_result r = run_ok({"histogram", "-i", arg("in.npy"), "--bins", "10", "--range", "0:100", "--query", "0:9",
                                 "--query", "4:4", "--query", "2:5", "--queries", arg(file_name)});
    const host_array q = read_output(file_name);
    std::vector<std::pair<std::size_t, std::size_t>> asked{{0, 9}, {4, 4}, {2, 5}};
    for (std::int64_t i = 0; i < q.shape[0]; ++i) {
      const auto at = [&](std::int64_t j) {
        return static_cast<std::size_t>(q.type == dtype::int32 ? q.as<std::int32_t>()[j] : q.as<std::int64_t>()[j]);
      };
      asked.emplace_back(at(2 * i), at(2 * i + 1));
    }
    std::vector<std::string> expected{lines_of(r.out).at(0)};
    for (const auto& [a, b] : asked)
      expected.push_back("bins " + std::to_string(a) + ".." + std::to_string(b) + ": " + std::to_string(sum_of(counts, a, b)));
    EXPECT_EQ(lines_of(r.out), expected) << r;
    EXPECT_TRUE(contains(expected[0], "105 counted, 1 dropped")) << r;
  }
  EXPECT_EQ(names_of(snapshot(dir_)), (std::set<std::string>{"in.npy", "q32.npy", "q64.npy"}));  // no -o, no file
}

// One chart line per group of bins (at most 32 groups), with a bar of '#' when the group holds samples
// and the group's count at the end.
TEST_F(CliTest, HistogramChart) {
  std::vector<std::uint8_t> samples;
  for (int x = 0; x < 100; ++x) samples.push_back(static_cast<std::uint8_t>(x));
  write_input("in.npy", array_of(samples));
  const struct {
    const char* bins;
    std::size_t groups;
    const char* per_group;
  } cases[] = {{"10", 10, " 10"}, {"100", 25, " 4"}, {"1", 1, " 100"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.bins);
    const run_result r = run_ok({"histogram", "-i", arg("in.npy"), "--bins", c.bins, "--range", "0:100", "--chart"});
    const auto lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 1 + c.groups) << r;
    EXPECT_TRUE(contains(lines[0], "100 counted, 0 dropped")) << r;
    for (std::size_t i = 1; i < lines.size(); ++i) {
      EXPECT_TRUE(contains(lines[i], "#")) << lines[i];
      const std::string tail = c.per_group;
      EXPECT_EQ(lines[i].substr(lines[i].size() - std::min(lines[i].size(), tail.size())), tail) << lines[i];
    }
  }
}

TEST_F(CliTest, HistogramRawInputAndOutput) {
  write_file(path("in.bin"), bytes_of(std::vector<float>{0.5f, 1.5f, 1.75f, 3.f, -1.f}));
  run_ok({"histogram", "-i", arg("in.bin"), "--dtype", "float32", "--bins", "2", "--range", "0:2", "-o", arg("h.bin")});
  EXPECT_EQ(read_file(path("h.bin")), bytes_of(std::vector<std::uint64_t>{1, 2}));
  run_ok({"histogram", "-i", arg("in.bin"), "--dtype", "float32", "--bins", "2", "--range", "0:2", "--counter", "uint32",
          "-o", arg("h32.bin")});
  EXPECT_EQ(read_file(path("h32.bin")), bytes_of(std::vector<std::uint32_t>{1, 2}));
}

TEST_F(CliTest, HistogramHelpGoesToStdout) {
  const run_result r = run({"histogram", "--help"});
  EXPECT_EQ(r.exit_code, ex_ok) << r;
  EXPECT_EQ(r.err, "") << r;
  EXPECT_EQ(r.out.rfind("usage: lookback histogram", 0), 0u) << r;
  EXPECT_TRUE(contains(r.out, "--bins") && contains(r.out, "--range") && contains(r.out, "--chart")) << r;
}

// --- compact ------------------------------------------------------------------------------------

// The one line compact prints: what it kept, of how many, and where it wrote them.
std::string compact_line(const std::string& how, std::size_t kept, std::size_t of, const std::string& type,
                         const std::string& output) {
  return "compact " + how + ": kept " + std::to_string(kept) + " of " + std::to_string(of) + " " + type +
         " elements -> " + output + " (in-core)";
}

TEST_F(CliTest, CompactKeepsWhatThePredicatePasses) {
  const struct {
    const char* predicate;
    std::vector<std::int32_t> kept;
  } cases[] = {
      {"nonzero", small_values},   {"gt:1", {3, 4, 9}},     {"ge:1", {3, 4, 1, 9}},
      {"lt:1", {-1, -5}},          {"le:1", {-1, 1, -5}},   {"eq:4", {4}},
      {"ne:4", {3, -1, 1, -5, 9}}, {"gt:-6", small_values}, {"gt:100", {}},
  };
  write_input("in.npy", array_of(small_values));
  write_file(path("out.npy"), "stale");
  for (const auto& c : cases) {
    SCOPED_TRACE(c.predicate);
    const run_result r = run_ok({"compact", "-i", arg("in.npy"), "-o", arg("out.npy"), "--predicate", c.predicate});
    EXPECT_EQ(lines_of(r.out), std::vector<std::string>{compact_line(c.predicate, c.kept.size(), 6, "int32", arg("out.npy"))});
    const host_array out = read_output("out.npy");
    EXPECT_EQ(out.shape, std::vector<std::int64_t>{static_cast<std::int64_t>(c.kept.size())});
    EXPECT_EQ(elements<std::int32_t>(out), c.kept);
  }
  EXPECT_EQ(names_of(snapshot(dir_)), (std::set<std::string>{"in.npy", "out.npy"}));  // no temporaries left
}

// A flag is set when any of its bytes is: the high byte alone, a sign bit alone, every width.
TEST_F(CliTest, CompactByFlagsOfEveryIntegerDtype) {
  const std::pair<const char*, std::string> flag_files[] = {
      {"bool", npy_with_header(npy_dict("|b1", "(6,)"), std::string("\0\1\0\1\0\1", 6))},
      {"int8", npy_text(array_of(std::vector<std::int8_t>{0, -128, 0, 1, 0, 127}))},
      {"uint8", npy_text(array_of(std::vector<std::uint8_t>{0, 255, 0, 1, 0, 2}))},
      {"int16", npy_text(array_of(std::vector<std::int16_t>{0, 256, 0, -1, 0, 1}))},
      {"uint16", npy_text(array_of(std::vector<std::uint16_t>{0, 0x8000, 0, 1, 0, 2}))},
      {"int32", npy_text(array_of(std::vector<std::int32_t>{0, 1 << 24, 0, -1, 0, 7}))},
      {"uint32", npy_text(array_of(std::vector<std::uint32_t>{0, 0x80000000u, 0, 1, 0, 2}))},
      {"int64", npy_text(array_of(std::vector<std::int64_t>{0, std::int64_t{1} << 40, 0, -1, 0, 3}))},
      {"uint64", npy_text(array_of(std::vector<std::uint64_t>{0, 1ull << 63, 0, 1, 0, 2}))},
  };
  write_input("in.npy", array_of(small_values));
  for (const auto& [type, contents] : flag_files) {
    SCOPED_TRACE(type);
    write_file(path("f.npy"), contents);
    const run_result r = run_ok({"compact", "-i", arg("in.npy"), "-o", arg("out.npy"), "--flags", arg("f.npy")});
    EXPECT_EQ(lines_of(r.out), std::vector<std::string>{compact_line("by flags", 3, 6, "int32", arg("out.npy"))});
    EXPECT_EQ(elements<std::int32_t>(read_output("out.npy")), (std::vector<std::int32_t>{-1, 1, 9}));
  }
}

// Values and their flags keep their bytes: NaN and infinities pass through, -0.0 equals 0.
TEST_F(CliTest, CompactKeepsTheValuesDtype) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  write_input("f64.npy", array_of(std::vector<double>{-0.0, 0.5, nan, 2.5, -inf, 0.0}));
  run_ok({"compact", "-i", arg("f64.npy"), "-o", arg("out.npy"), "--predicate", "ne:0"});
  EXPECT_EQ(read_output("out.npy").type, dtype::float64);
  EXPECT_EQ(read_output("out.npy").bytes, array_of(std::vector<double>{0.5, nan, 2.5, -inf}).bytes);

  write_input("f32.npy", array_of(std::vector<float>{0.25f, 1.5f, 3.f, -2.f}));
  run_ok({"compact", "-i", arg("f32.npy"), "-o", arg("out.npy"), "--predicate", "ge:1.5"});
  EXPECT_EQ(elements<float>(read_output("out.npy")), (std::vector<float>{1.5f, 3.f}));

  write_input("u64.npy", array_of(std::vector<std::uint64_t>{~0ull, 1, 1ull << 63}));
  run_ok({"compact", "-i", arg("u64.npy"), "-o", arg("out.npy"), "--predicate", "gt:9223372036854775807"});
  EXPECT_EQ(elements<std::uint64_t>(read_output("out.npy")), (std::vector<std::uint64_t>{~0ull, 1ull << 63}));

  write_input("i64.npy", array_of(std::vector<std::int64_t>{-3, 5, -1, 0}));
  write_input("f.npy", array_of(std::vector<std::uint8_t>{1, 1, 0, 1}));
  run_ok({"compact", "-i", arg("i64.npy"), "-o", arg("out.npy"), "--flags", arg("f.npy")});
  EXPECT_EQ(elements<std::int64_t>(read_output("out.npy")), (std::vector<std::int64_t>{-3, 5, 0}));
}

// A 2-D array compacts in C order into a 1-D one, by a predicate or by flags of its shape.
TEST_F(CliTest, CompactFlattensATwoDimensionalArray) {
  write_input("in.npy", array_of(std::vector<std::uint32_t>{1, 0, 2, 3, 0, 4}, {2, 3}));
  const run_result r = run_ok({"compact", "-i", arg("in.npy"), "-o", arg("out.npy"), "--predicate", "nonzero"});
  EXPECT_EQ(lines_of(r.out), std::vector<std::string>{compact_line("nonzero", 4, 6, "uint32", arg("out.npy"))});
  host_array out = read_output("out.npy");
  EXPECT_EQ(out.shape, std::vector<std::int64_t>{4});
  EXPECT_EQ(elements<std::uint32_t>(out), (std::vector<std::uint32_t>{1, 2, 3, 4}));

  write_input("f.npy", array_of(std::vector<std::int32_t>{0, 0, 1, 1, 0, 0}, {2, 3}));
  run_ok({"compact", "-i", arg("in.npy"), "-o", arg("out.npy"), "--flags", arg("f.npy")});
  out = read_output("out.npy");
  EXPECT_EQ(out.shape, std::vector<std::int64_t>{2});
  EXPECT_EQ(elements<std::uint32_t>(out), (std::vector<std::uint32_t>{2, 3}));
}

TEST_F(CliTest, CompactOfAnEmptyArray) {
  write_input("in.npy", array_of(std::vector<float>{}));
  write_input("f.npy", array_of(std::vector<std::uint8_t>{}));
  for (const auto& how : std::vector<std::vector<std::string>>{{"--predicate", "gt:0"}, {"--flags", arg("f.npy")}}) {
    SCOPED_TRACE(how[0]);
    std::vector<std::string> args{"compact", "-i", arg("in.npy"), "-o", arg("out.npy")};
    args.insert(args.end(), how.begin(), how.end());
    const run_result r = run_ok(args);
    EXPECT_TRUE(contains(r.out, ": kept 0 of 0 float32 elements")) << r;
    const host_array out = read_output("out.npy");
    EXPECT_EQ(out.type, dtype::float32);
    EXPECT_EQ(out.shape, std::vector<std::int64_t>{0});
  }
}

TEST_F(CliTest, CompactRawInputFlagsAndOutput) {
  write_file(path("in.bin"), bytes_of(std::vector<std::int64_t>{5, -2, 7}));
  run_ok({"compact", "-i", arg("in.bin"), "--dtype", "int64", "-o", arg("out.bin"), "--predicate", "lt:6"});
  EXPECT_EQ(read_file(path("out.bin")), bytes_of(std::vector<std::int64_t>{5, -2}));

  write_file(path("f.bin"), bytes_of(std::vector<std::uint16_t>{0, 0x100, 1}));
  run_ok({"compact", "-i", arg("in.bin"), "--dtype", "int64", "-o", arg("out.npy"), "--flags", arg("f.bin"),
          "--flags-dtype", "uint16"});
  EXPECT_EQ(elements<std::int64_t>(read_output("out.npy")), (std::vector<std::int64_t>{-2, 7}));
}

TEST_F(CliTest, CompactHelpGoesToStdout) {
  const run_result r = run({"compact", "--help"});
  EXPECT_EQ(r.exit_code, ex_ok) << r;
  EXPECT_EQ(r.err, "") << r;
  EXPECT_EQ(r.out.rfind("usage: lookback compact", 0), 0u) << r;
  for (const char* option : {"--flags", "--flags-dtype", "--predicate", "gt:V", "--verify", "--backend"})
    EXPECT_TRUE(contains(r.out, option)) << option << "\n" << r;
}

// --- sort ---------------------------------------------------------------------------------------

// The one line sort prints: how it sorted, how many keys of which dtype, where it wrote them, and
// that the sort ran in-core.
std::string sort_line(const std::string& how, std::size_t n, const std::string& key_type, const std::string& output) {
  return "sort " + how + ": " + std::to_string(n) + " " + key_type + " keys -> " + output + " (in-core)";
}
std::string sort_line(const std::string& how, std::size_t n, const std::string& key_type, const std::string& value_type,
                      const std::string& output, const std::string& values_output) {
  return "sort " + how + ": " + std::to_string(n) + " " + key_type + " keys with " + value_type + " values -> " + output +
         ", " + values_output + " (in-core)";
}

// `items` in the order `order` names: what a stable sort by a key field writes.
template <class T>
std::vector<T> gathered(const std::vector<T>& items, const std::vector<std::size_t>& order) {
  std::vector<T> out;
  for (const std::size_t i : order) out.push_back(items[i]);
  return out;
}

TEST_F(CliTest, SortKeysAscendingAndDescending) {
  write_input("in.npy", array_of(small_values));
  write_file(path("out.npy"), "stale");
  const run_result up = run_ok({"sort", "-i", arg("in.npy"), "-o", arg("out.npy")});
  EXPECT_EQ(lines_of(up.out), std::vector<std::string>{sort_line("ascending", 6, "int32", arg("out.npy"))});
  host_array out = read_output("out.npy");
  EXPECT_EQ(out.shape, std::vector<std::int64_t>{6});
  EXPECT_EQ(elements<std::int32_t>(out), (std::vector<std::int32_t>{-5, -1, 1, 3, 4, 9}));

  const run_result down = run_ok({"sort", "-i", arg("in.npy"), "-o", arg("out.npy"), "--descending"});
  EXPECT_EQ(lines_of(down.out), std::vector<std::string>{sort_line("descending", 6, "int32", arg("out.npy"))});
  EXPECT_EQ(elements<std::int32_t>(read_output("out.npy")), (std::vector<std::int32_t>{9, 4, 3, 1, -1, -5}));
  EXPECT_EQ(names_of(snapshot(dir_)), (std::set<std::string>{"in.npy", "out.npy"}));  // no temporaries left
}

// Equal keys keep their input order in both directions, and values keep their dtype, whatever its width.
TEST_F(CliTest, SortPairsIsStable) {
  const std::vector<std::uint32_t> keys{2, 1, 2, 1, 0, 2};
  const std::vector<std::size_t> ascending{4, 1, 3, 0, 2, 5}, descending{0, 2, 5, 1, 3, 4};
  const std::vector<std::int64_t> positions{0, 1, 2, 3, 4, 5};
  const std::vector<float> fractions{0.5f, -1.5f, 2.25f, 3.f, -0.f, 8.f};
  write_input("in.npy", array_of(keys));
  write_input("i64.npy", array_of(positions));
  write_input("f32.npy", array_of(fractions));
  for (const bool down : {false, true}) {
    SCOPED_TRACE(down ? "descending" : "ascending");
    const auto& order = down ? descending : ascending;
    for (const char* values : {"i64.npy", "f32.npy"}) {
      SCOPED_TRACE(values);
      std::vector<std::string> args{"sort", "-i", arg("in.npy"), "-o", arg("sk.npy"), "--values", arg(values),
                                    "--values-output", arg("sv.npy")};
      if (down) args.push_back("--descending");
      const run_result r = run_ok(args);
      const bool wide = std::string(values) == "i64.npy";
      const std::string line = sort_line(down ? "descending" : "ascending", 6, "uint32", wide ? "int64" : "float32",
                                         arg("sk.npy"), arg("sv.npy"));
      EXPECT_EQ(lines_of(r.out), std::vector<std::string>{line});
      EXPECT_EQ(elements<std::uint32_t>(read_output("sk.npy")), gathered(keys, order));
      const host_array sorted_values = read_output("sv.npy");
      EXPECT_EQ(sorted_values.shape, std::vector<std::int64_t>{6});
      if (wide)
        EXPECT_EQ(elements<std::int64_t>(sorted_values), gathered(positions, order));
      else
        EXPECT_EQ(sorted_values.bytes, array_of(gathered(fractions, order)).bytes);  // -0.0 kept bit for bit
    }
  }

  // Many equal keys: each key's values come out in their input order.
  std::vector<std::int32_t> many_keys, many_values;
  for (std::int32_t i = 0; i < 1000; ++i) {
    many_keys.push_back(i % 7 - 3);
    many_values.push_back(i);
  }
  write_input("many.npy", array_of(many_keys));
  write_input("many_values.npy", array_of(many_values));
  run_ok({"sort", "-i", arg("many.npy"), "-o", arg("sk.npy"), "--values", arg("many_values.npy"), "--values-output",
          arg("sv.npy")});
  const auto sorted_keys = elements<std::int32_t>(read_output("sk.npy"));
  const auto sorted_values = elements<std::int32_t>(read_output("sv.npy"));
  ASSERT_EQ(sorted_keys.size(), 1000u);
  ASSERT_EQ(sorted_values.size(), 1000u);
  for (std::size_t i = 0; i < sorted_keys.size(); ++i) {
    ASSERT_EQ(sorted_keys[i], many_keys[static_cast<std::size_t>(sorted_values[i])]) << i;
    if (i > 0) {
      ASSERT_LE(sorted_keys[i - 1], sorted_keys[i]) << i;
      if (sorted_keys[i - 1] == sorted_keys[i]) ASSERT_LT(sorted_values[i - 1], sorted_values[i]) << i;
    }
  }
}

// --bits B:E sorts by bits [B, E) of the order-preserving pattern, in which a signed key's sign bit is
// flipped: bit 31 of an int32 key tells negatives (0) from the rest (1).
TEST_F(CliTest, SortOnABitRange) {
  const std::vector<std::uint32_t> keys{0x12, 0x21, 0x13, 0x02, 0x31};
  const std::vector<std::uint32_t> positions{0, 1, 2, 3, 4};
  write_input("in.npy", array_of(keys));
  write_input("v.npy", array_of(positions));
  const struct {
    std::vector<std::string> options;
    std::string how;
    std::vector<std::size_t> order;
  } cases[] = {
      {{"--bits", "4:8"}, "ascending on bits 4:8", {3, 0, 2, 1, 4}},
      {{"--bits", "0:4"}, "ascending on bits 0:4", {1, 4, 0, 3, 2}},
      {{"--bits", "0:4", "--descending"}, "descending on bits 0:4", {2, 0, 3, 1, 4}},
      {{"--bits", "0:32"}, "ascending", {3, 0, 2, 1, 4}},  // every bit: no range to mention
      {{"--bits", "8:32"}, "ascending on bits 8:32", {0, 1, 2, 3, 4}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.how);
    std::vector<std::string> args{"sort", "-i", arg("in.npy"), "-o", arg("sk.npy"), "--values", arg("v.npy"),
                                  "--values-output", arg("sv.npy")};
    args.insert(args.end(), c.options.begin(), c.options.end());
    const run_result r = run_ok(args);
    EXPECT_EQ(lines_of(r.out),
              std::vector<std::string>{sort_line(c.how, 5, "uint32", "uint32", arg("sk.npy"), arg("sv.npy"))});
    EXPECT_EQ(elements<std::uint32_t>(read_output("sk.npy")), gathered(keys, c.order));
    EXPECT_EQ(elements<std::uint32_t>(read_output("sv.npy")), gathered(positions, c.order));
  }

  write_input("signed.npy", array_of(std::vector<std::int32_t>{-1, 1, -2, 2}));
  run_ok({"sort", "-i", arg("signed.npy"), "-o", arg("out.npy"), "--bits", "31:32"});
  EXPECT_EQ(elements<std::int32_t>(read_output("out.npy")), (std::vector<std::int32_t>{-1, -2, 1, 2}));
  run_ok({"sort", "-i", arg("signed.npy"), "-o", arg("out.npy"), "--bits", "31:32", "--descending"});
  EXPECT_EQ(elements<std::int32_t>(read_output("out.npy")), (std::vector<std::int32_t>{1, 2, -1, -2}));
}

// Floats sort by their order-preserving bits: negative NaNs first and positive NaNs last, -0.0 equal to
// +0.0 (so the two keep their input order), and every key written back bit for bit.
TEST_F(CliTest, SortOrdersFloatsByTheirOrderPreservingBits) {
  const auto check = [&](auto zero) {
    using T = decltype(zero);
    const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
    const std::vector<T> keys{T(1), T(-0.0), nan, T(0), -inf, std::copysign(nan, T(-1)), inf, T(-2.5)};
    const std::vector<std::int32_t> positions{0, 1, 2, 3, 4, 5, 6, 7};
    const std::vector<std::size_t> ascending{5, 4, 7, 1, 3, 0, 6, 2}, descending{2, 6, 0, 1, 3, 7, 4, 5};
    write_input("keys.npy", array_of(keys));
    write_input("v.npy", array_of(positions));
    for (const bool down : {false, true}) {
      SCOPED_TRACE(down ? "descending" : "ascending");
      std::vector<std::string> args{"sort", "-i", arg("keys.npy"), "-o", arg("sk.npy"), "--values", arg("v.npy"),
                                    "--values-output", arg("sv.npy")};
      if (down) args.push_back("--descending");
      run_ok(args);
      const auto& order = down ? descending : ascending;
      EXPECT_EQ(read_output("sk.npy").bytes, array_of(gathered(keys, order)).bytes);
      EXPECT_EQ(elements<std::int32_t>(read_output("sv.npy")), gathered(positions, order));
    }
  };
  {
    SCOPED_TRACE("float32");
    check(float{});
  }
  {
    SCOPED_TRACE("float64");
    check(double{});
  }
}

// The two zeros share one pattern, +0.0's ascending and -0.0's descending (as cub::DeviceRadixSort
// does): a range without the sign bit puts them first either way, in their input order.
TEST_F(CliTest, SortGivesBothZerosCubsPatternInABitRange) {
  const std::vector<float> keys{1.5f, -0.0f, 0.0f};
  write_input("keys.npy", array_of(keys));
  for (const bool down : {false, true}) {
    SCOPED_TRACE(down ? "descending" : "ascending");
    std::vector<std::string> args{"sort", "-i", arg("keys.npy"), "-o", arg("sk.npy"), "--bits", "0:31"};
    if (down) args.push_back("--descending");
    run_ok(args);
    EXPECT_EQ(read_output("sk.npy").bytes, array_of(std::vector<float>{-0.0f, 0.0f, 1.5f}).bytes);
  }
}

// Each key dtype sorts in its own order, extremes included.
TEST_F(CliTest, SortEveryKeyDtype) {
  const auto check = [&](const char* type, auto keys, auto expected) {
    SCOPED_TRACE(type);
    write_input("in.npy", array_of(keys));
    const run_result r = run_ok({"sort", "-i", arg("in.npy"), "-o", arg("out.npy")});
    EXPECT_EQ(lines_of(r.out), std::vector<std::string>{sort_line("ascending", keys.size(), type, arg("out.npy"))});
    EXPECT_EQ(elements<typename decltype(keys)::value_type>(read_output("out.npy")), expected);
  };
  constexpr std::int64_t lowest = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t highest = std::numeric_limits<std::int64_t>::max();
  check("uint8", std::vector<std::uint8_t>{200, 3, 255, 0, 3}, std::vector<std::uint8_t>{0, 3, 3, 200, 255});
  check("uint16", std::vector<std::uint16_t>{40000, 7, 65535, 0}, std::vector<std::uint16_t>{0, 7, 40000, 65535});
  check("uint32", std::vector<std::uint32_t>{0x80000000u, 1, ~0u, 0}, std::vector<std::uint32_t>{0, 1, 0x80000000u, ~0u});
  check("int32", std::vector<std::int32_t>{5, std::numeric_limits<std::int32_t>::min(), -1, 0},
        std::vector<std::int32_t>{std::numeric_limits<std::int32_t>::min(), -1, 0, 5});
  check("uint64", std::vector<std::uint64_t>{~0ull, 1, 1ull << 63, 0}, std::vector<std::uint64_t>{0, 1, 1ull << 63, ~0ull});
  check("int64", std::vector<std::int64_t>{highest, -3, lowest, 5, 0}, std::vector<std::int64_t>{lowest, -3, 0, 5, highest});
  check("float32", std::vector<float>{2.5f, -1e30f, 0.f, 1e-30f}, std::vector<float>{-1e30f, 0.f, 1e-30f, 2.5f});
  check("float64", std::vector<double>{2.5, -1e300, 0.0, 1e-300}, std::vector<double>{-1e300, 0.0, 1e-300, 2.5});
}

// Keys and values of two dimensions sort in C order into 1-D arrays.
TEST_F(CliTest, SortFlattensATwoDimensionalArray) {
  write_input("in.npy", array_of(std::vector<std::uint16_t>{5, 1, 4, 2, 3, 0}, {2, 3}));
  write_input("v.npy", array_of(std::vector<double>{0.5, 1.5, 2.5, 3.5, 4.5, 5.5}, {2, 3}));
  run_ok({"sort", "-i", arg("in.npy"), "-o", arg("sk.npy"), "--values", arg("v.npy"), "--values-output", arg("sv.npy")});
  const host_array keys = read_output("sk.npy"), values = read_output("sv.npy");
  EXPECT_EQ(keys.shape, std::vector<std::int64_t>{6});
  EXPECT_EQ(values.shape, std::vector<std::int64_t>{6});
  EXPECT_EQ(elements<std::uint16_t>(keys), (std::vector<std::uint16_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(elements<double>(values), (std::vector<double>{5.5, 1.5, 3.5, 4.5, 2.5, 0.5}));
}

TEST_F(CliTest, SortOfAnEmptyArray) {
  write_input("in.npy", array_of(std::vector<float>{}));
  write_input("v.npy", array_of(std::vector<std::uint64_t>{}));
  const run_result r =
      run_ok({"sort", "-i", arg("in.npy"), "-o", arg("sk.npy"), "--values", arg("v.npy"), "--values-output", arg("sv.npy")});
  EXPECT_EQ(lines_of(r.out),
            std::vector<std::string>{sort_line("ascending", 0, "float32", "uint64", arg("sk.npy"), arg("sv.npy"))});
  const host_array keys = read_output("sk.npy"), values = read_output("sv.npy");
  EXPECT_EQ(keys.type, dtype::float32);
  EXPECT_EQ(keys.shape, std::vector<std::int64_t>{0});
  EXPECT_EQ(values.type, dtype::uint64);
  EXPECT_EQ(values.shape, std::vector<std::int64_t>{0});
}

TEST_F(CliTest, SortRawKeysValuesAndOutputs) {
  write_file(path("k.bin"), bytes_of(std::vector<std::int64_t>{5, -2, 7, -2}));
  write_file(path("v.bin"), bytes_of(std::vector<float>{0.f, 1.f, 2.f, 3.f}));
  run_ok({"sort", "-i", arg("k.bin"), "--dtype", "int64", "-o", arg("sk.bin"), "--values", arg("v.bin"), "--values-dtype",
          "float32", "--values-output", arg("sv.bin"), "--descending"});
  EXPECT_EQ(read_file(path("sk.bin")), bytes_of(std::vector<std::int64_t>{7, 5, -2, -2}));
  EXPECT_EQ(read_file(path("sv.bin")), bytes_of(std::vector<float>{2.f, 0.f, 1.f, 3.f}));

  // Raw in, .npy out: the outputs record the dtypes the user named.
  run_ok({"sort", "-i", arg("k.bin"), "--dtype", "i8", "-o", arg("sk.npy"), "--values", arg("v.bin"), "--values-dtype",
          "f4", "--values-output", arg("sv.npy")});
  EXPECT_EQ(elements<std::int64_t>(read_output("sk.npy")), (std::vector<std::int64_t>{-2, -2, 5, 7}));
  EXPECT_EQ(elements<float>(read_output("sv.npy")), (std::vector<float>{1.f, 3.f, 0.f, 2.f}));
}

TEST_F(CliTest, SortHelpGoesToStdout) {
  const run_result r = run({"sort", "--help"});
  EXPECT_EQ(r.exit_code, ex_ok) << r;
  EXPECT_EQ(r.err, "") << r;
  EXPECT_EQ(r.out.rfind("usage: lookback sort", 0), 0u) << r;
  for (const char* option :
       {"--values", "--values-output", "--values-dtype", "--descending", "--bits", "--verify", "--backend"})
    EXPECT_TRUE(contains(r.out, option)) << option << "\n" << r;
}

// --- backends ---------------------------------------------------------------------------------

class CliBackendTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    if (IsSkipped()) return;
    write_input("in.npy", array_of(small_values));
  }

  // Whether this machine has a usable GPU, as the command itself sees it; asked once per process.
  bool gpu_usable() const {
    static const std::optional<bool> usable = [this]() -> std::optional<bool> {
      const run_result r = run({"reduce", "-i", arg("in.npy"), "--backend", "gpu"});
      if (r.exit_code == ex_unavailable) {
        expect_one_error_line(r, "lookback reduce: ", "--backend gpu");
        return false;
      }
      if (r.exit_code == ex_ok && r.out == std::string(small_sum) + "\n") return true;
      ADD_FAILURE() << "--backend gpu must either work or exit 69\n" << r;
      return std::nullopt;
    }();
    if (!usable) throw std::runtime_error("GPU probe failed; see the first backend test");
    return *usable;
  }

  std::vector<std::string> scan_args() const { return {"scan", "-i", arg("in.npy"), "-o", arg("out.npy")}; }
  std::vector<std::int32_t> scanned() const { return elements<std::int32_t>(read_output("out.npy")); }
};

TEST_F(CliBackendTest, AutoUsesTheGpuOrSaysItFellBack) {
  const bool gpu = gpu_usable();
  for (const auto& backend : std::vector<std::vector<std::string>>{{}, {"--backend", "auto"}}) {
    std::vector<std::string> args{"reduce", "-i", arg("in.npy")};
    args.insert(args.end(), backend.begin(), backend.end());
    SCOPED_TRACE(::testing::PrintToString(args));
    const run_result r = run(args);
    EXPECT_EQ(r.exit_code, ex_ok) << r;
    EXPECT_EQ(r.out, std::string(small_sum) + "\n") << r;
    if (gpu) {
      EXPECT_EQ(r.err, "") << r;
    } else {
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r;
      EXPECT_TRUE(contains(r.err, "notice") && contains(r.err, "CPU")) << r;
    }
  }
  if (gpu) {
    const run_result r = run({"scan", "-i", arg("in.npy"), "-o", arg("out.npy"), "--backend", "gpu"});
    EXPECT_EQ(r.exit_code, ex_ok) << r;
    EXPECT_EQ(scanned(), (std::vector<std::int32_t>{0, 3, 2, 6, 7, 2}));
  }
}

TEST_F(CliBackendTest, VerifyComparesWithCubOrNeedsAGpu) {
  const bool gpu = gpu_usable();
  auto reduce = std::vector<std::string>{"reduce", "-i", arg("in.npy"), "--verify"};
  auto scan = scan_args();
  scan.push_back("--verify");
  if (!gpu) {
    for (const auto& args : {reduce, scan}) {
      SCOPED_TRACE(::testing::PrintToString(args));
      for (const char* backend : {"auto", "cpu"}) {
        auto with_backend = args;
        with_backend.insert(with_backend.end(), {"--backend", backend});
        const run_result r = run(with_backend);
        EXPECT_EQ(r.exit_code, ex_unavailable) << r;
        expect_one_error_line(r, "lookback " + args[0] + ": ", "--verify");
      }
    }
    EXPECT_FALSE(fs::exists(path("out.npy")));
    return;
  }
  const auto expect_verified = [](const run_result& r) {
    EXPECT_EQ(r.exit_code, ex_ok) << r;
    const auto lines = lines_of(r.out);
    EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
      return contains(l, "outputs match") && contains(l, "cub");
    })) << r;
  };
  const run_result reduced = run(reduce);
  expect_verified(reduced);
  const auto lines = lines_of(reduced.out);
  EXPECT_NE(std::find(lines.begin(), lines.end(), small_sum), lines.end()) << reduced;
  expect_verified(run(scan));
  EXPECT_EQ(scanned(), (std::vector<std::int32_t>{0, 3, 2, 6, 7, 2}));
}

}  // namespace

// --- lookback ladder -------------------------------------------------------------------------------

namespace {

// Usage errors come before the GPU probe, so they read the same on every machine: exit 64, one line,
// nothing on stdout and no file created (not even the --json output).
TEST_F(CliTest, LadderUsageErrors) {
  const struct {
    std::vector<std::string> args;
    std::string fragment;
  } cases[] = {
      {{"ladder", "reduce", "--n", "0"}, "--n must be at least 1, not '0'"},
      {{"ladder", "scan", "--n", "2^0", "--n", "3"}, "'--n'"},
      {{"ladder", "scan", "--n", "abc"}, "--n must be a positive integer or 2^K, not 'abc'"},
      {{"ladder", "reduce", "--n", "1.5"}, "--n must be a positive integer or 2^K, not '1.5'"},
      {{"ladder", "reduce", "--n", ""}, "--n must be a positive integer or 2^K, not ''"},
      {{"ladder", "reduce", "--n", "2^63"}, "--n must be a positive integer or 2^K (K <= 62), not '2^63'"},
      {{"ladder", "reduce", "--n", "2^9999999999999999999"},
       "--n must be a positive integer or 2^K (K <= 62), not '2^9999999999999999999'"},
      {{"ladder", "reduce", "--n", "2^35"}, "--n is too large (at most 2^34), not '2^35'"},
      {{"ladder", "reduce", "--n", "17179869185"}, "--n is too large (at most 2^34), not '17179869185'"},
      {{"ladder", "reduce", "--n", "99999999999999999999"}, "--n must be a positive integer or 2^K"},
      {{"ladder", "reduce", "--n=-5"}, "--n must be a positive integer or 2^K, not '-5'"},
      {{"ladder", "sort"}, "unknown ladder 'sort' (reduce, scan, conv1d or conv2d)"},
      {{"ladder"}, "which ladder: reduce, scan, conv1d or conv2d?"},
      {{"ladder", "conv1d", "--mask", "4"}, "--mask must be odd, from 1 to 255, not 4"},
      {{"ladder", "conv1d", "--mask", "257"}, "--mask must be odd, from 1 to 255, not 257"},
      {{"ladder", "conv2d", "--mask", "17"}, "--mask must be odd, from 1 to 15, not 17"},
      {{"ladder", "conv2d", "--mask", "-3"}, "--mask must be odd, from 1 to 15, not -3"},
      {{"ladder", "conv1d", "--mask", "0"}, "--mask must be odd, from 1 to 255, not 0"},
      {{"ladder", "reduce", "--mask", "0"}, "--mask is for the convolution ladders"},
      {{"ladder", "conv1d", "--type", "int32"}, "--type must be float32 or float64 for the convolutions, not 'int32'"},
      {{"ladder", "reduce", "--mask", "3"}, "--mask is for the convolution ladders"},
      {{"ladder", "reduce", "scan"}, "positional"},
      {{"ladder", "reduce", "--type", "int8"}, "--type must be one of int32, uint32, int64, uint64, float32, float64, not 'int8'"},
      {{"ladder", "scan", "--type", "bogus"}, "not 'bogus'"},
      {{"ladder", "reduce", "--frobnicate"}, "unrecognised option '--frobnicate'"},
      {{"ladder", "conv2d", "--plot", "table.svg"}, "--plot writes a .png file, not table.svg"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = c.args;
    args.insert(args.end(), {"--json", arg("table.json")});
    SCOPED_TRACE(::testing::PrintToString(args));
    const run_result r = run(args);
    EXPECT_EQ(r.exit_code, ex_usage) << r;
    EXPECT_EQ(r.out, "") << r;
    expect_one_error_line(r, "lookback ladder: ", c.fragment);
    EXPECT_TRUE(snapshot(dir_).empty()) << "a failed run must create nothing\n" << r;
  }
}

// /dev/stdout is a pipe here, reached through /proc links that end in no path: the JSON is written to
// it directly, so without a GPU the run gets as far as the GPU check (it once stopped at "cannot create").
TEST_F(CliTest, LadderOpensItsJsonOnAPipe) {
  if (gpu_present()) GTEST_SKIP() << "with a GPU the ladder runs for minutes; the point is where the file opens";
  const run_result r = run({"ladder", "reduce", "--json", "/dev/stdout"});
  EXPECT_EQ(r.exit_code, ex_unavailable) << r;
  expect_one_error_line(r, "lookback ladder: ", "needs a GPU");
}

// Every family's rungs on a small problem, each row checked against its reference (a FAILED row exits
// 70): the conv2d image sized square from --n, and the table out before the JSON on the same stdout.
TEST_F(CliTest, LadderRunsEveryFamilyOnAGpuTableFirst) {
  if (!gpu_present()) GTEST_SKIP() << "no CUDA device";
  for (const std::string family : {"reduce", "scan", "conv1d", "conv2d"}) {
    SCOPED_TRACE(family);
    const run_result r = run({"ladder", family, "--n", "1000", "--json", "/dev/stdout"});
    ASSERT_EQ(r.exit_code, ex_ok) << r;
    EXPECT_EQ(r.out.rfind("lookback ladder " + family, 0), 0u) << r;
    const auto json = r.out.find("{\n  \"command\": \"ladder\"");
    ASSERT_NE(json, std::string::npos) << r;
    EXPECT_NE(r.out.rfind("GB/s", json), std::string::npos) << "the table before the JSON\n" << r;
    EXPECT_FALSE(contains(r.out, "FAILED")) << r;
  }
}

// --json and --plot naming one file (here through a link not yet pointing anywhere) would leave only the
// plot: refused before anything is created.
TEST_F(CliTest, LadderRefusesOneFileForTheJsonAndThePlot) {
  fs::create_symlink("table.png", dir_ / "link.png");
  for (const std::string& json : {arg("table.png"), arg("link.png")}) {
    const run_result r = run({"ladder", "conv2d", "--json", json, "--plot", arg("table.png")});
    EXPECT_EQ(r.exit_code, ex_usage) << r;
    expect_one_error_line(r, "lookback ladder: ", "--json and --plot name the same file");
    EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1) << "only the link\n" << r;
  }
}

// Ctrl-C while --plot looks for matplotlib (here a "python" that only sleeps) removes the command's
// scratch folder and the file in it, as it removes temporary outputs. No GPU is needed: the plotter is
// found before the GPU is.
TEST_F(CliTest, LadderCtrlCRemovesThePlotsScratchFolder) {
  const fs::path tmp = dir_ / "tmp";
  fs::create_directory(tmp);
  write_file(path("slow-python"), "#!/bin/sh\nexec sleep 30\n");
  fs::permissions(path("slow-python"), fs::perms::owner_all);
  write_file(path("plot.py"), "");
  const pid_t pid = start_interruptible({"ladder", "scan", "--plot", arg("out.png")},
                                        {"TMPDIR=" + tmp.string(), "LOOKBACK_PYTHON=" + path("slow-python").string(),
                                         "LOOKBACK_PLOT_SCRIPT=" + path("plot.py").string()});
  // The "python" is running once its stderr file exists in the scratch folder.
  const auto running = [&] {
    for (const auto& e : fs::directory_iterator(tmp))
      if (fs::exists(e.path() / "stderr")) return true;
    return false;
  };
  if (!wait_until(running, std::chrono::seconds(30))) {
    ::kill(-pid, SIGKILL);  // no stray command or "python" left behind
    wait_status(pid);
    FAIL() << "no scratch folder with the probe's stderr appeared in 30 s";
  }
  ::kill(-pid, SIGINT);  // the sleeping "python" too, as a terminal's Ctrl-C
  const int status = wait_status(pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the command ended before Ctrl-C (status " << status << ")";
  EXPECT_EQ(WTERMSIG(status), SIGINT);
  EXPECT_EQ(names_of(snapshot(dir_)), (std::set<std::string>{"tmp", "slow-python", "plot.py"}));
}

// A LOOKBACK_PLOT_SCRIPT that names no readable file, or a TMPDIR that does not exist, is refused
// before any work, in one line naming it, GPU or not.
TEST_F(CliTest, LadderRefusesAMissingPlotScriptOrTemporaryFolder) {
  const struct {
    const char* variable;
    std::string value;
    int exit_code;
    std::string fragment;
  } cases[] = {
      {"LOOKBACK_PLOT_SCRIPT", arg("missing.py"), ex_unavailable,
       "--plot: LOOKBACK_PLOT_SCRIPT names " + arg("missing.py") + ", which is not a readable file"},
      {"TMPDIR", arg("no-such-folder"), ex_cantcreat, "--plot: no temporary directory (TMPDIR)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.variable);
    const run_result r = [&] {
      const scoped_env set(c.variable, c.value);
      return run({"ladder", "scan", "--plot", arg("out.png")});
    }();
    EXPECT_EQ(r.exit_code, c.exit_code) << r;
    expect_one_error_line(r, "lookback ladder: ", c.fragment);
    EXPECT_FALSE(fs::exists(path("out.png")));
  }
}

// A --json file that cannot be created fails before any work, GPU or not, and creates nothing.
TEST_F(CliTest, LadderRefusesAnUncreatableJsonFile) {
  fs::create_directory(dir_ / "taken.json");
  const struct {
    std::string path;
    std::string fragment;
  } cases[] = {
      {arg("nowhere/table.json"), arg("nowhere/table.json") + ": cannot create: directory " + arg("nowhere") + " does not exist"},
      {arg("taken.json"), arg("taken.json") + ": cannot create: is a directory"},
  };
  const auto before = snapshot(dir_);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.path);
    const run_result r = run({"ladder", "reduce", "--n", "1000", "--json", c.path});
    EXPECT_EQ(r.exit_code, ex_cantcreat) << r;
    EXPECT_EQ(r.out, "") << r;
    expect_one_error_line(r, "lookback ladder: ", c.fragment);
    EXPECT_EQ(snapshot(dir_), before) << "a failed run must create nothing\n" << r;
  }
}

TEST_F(CliTest, LadderHelpGoesToStdout) {
  const run_result r = run({"ladder", "--help"});
  EXPECT_EQ(r.exit_code, ex_ok) << r;
  EXPECT_EQ(r.err, "") << r;
  EXPECT_EQ(r.out.rfind("usage: lookback ladder", 0), 0u) << r;
  for (const char* option : {"--n", "--type", "--json", "2^24", "float32", "int32"})
    EXPECT_TRUE(contains(r.out, option)) << option << "\n" << r;
}

std::size_t count_of(const std::string& text, const std::string& fragment) {
  std::size_t count = 0;
  for (std::size_t at = text.find(fragment); at != std::string::npos; at = text.find(fragment, at + 1)) ++count;
  return count;
}

// Without a GPU: exit 69 with one line, and no --json file. With one: a table of every rung and CUB,
// all checked ok, and the same rows in the JSON file.
TEST_F(CliTest, LadderNeedsAGpuOrPrintsTheTable) {
  const run_result r = run({"ladder", "reduce", "--n", "1000", "--json", arg("reduce.json")});
  if (r.exit_code == ex_unavailable) {
    expect_one_error_line(r, "lookback ladder: ", "needs a GPU");
    EXPECT_EQ(r.out, "") << r;
    EXPECT_TRUE(snapshot(dir_).empty()) << r;
    const run_result scan = run({"ladder", "scan"});
    EXPECT_EQ(scan.exit_code, ex_unavailable) << scan;
    expect_one_error_line(scan, "lookback ladder: ", "needs a GPU");
    return;
  }
  ASSERT_EQ(r.exit_code, ex_ok) << r;
  EXPECT_EQ(r.err, "") << r;
  EXPECT_FALSE(contains(r.out, "FAILED")) << r;
  for (const char* row : {"1 interleaved, divergent", "7 multiple elements per thread", "10 production", "CUB"})
    EXPECT_TRUE(contains(r.out, row)) << row << "\n" << r;
  EXPECT_EQ(count_of(r.out, " ok\n"), 11u) << r;
  const std::string json = read_file(path("reduce.json"));
  EXPECT_EQ(count_of(json, "\"variant\""), 11u) << json;
  EXPECT_TRUE(contains(json, "\"family\": \"reduce\"")) << json;
  EXPECT_TRUE(contains(json, "\"n\": 1000")) << json;

  const run_result scan = run({"ladder", "scan", "--n", "100003", "--type", "float64"});
  ASSERT_EQ(scan.exit_code, ex_ok) << scan;
  EXPECT_EQ(scan.err, "") << scan;
  EXPECT_FALSE(contains(scan.out, "FAILED")) << scan;
  for (const char* row : {"1 Kogge-Stone", "6 single-pass domino", "7 production", "CUB"})
    EXPECT_TRUE(contains(scan.out, row)) << row << "\n" << scan;
  EXPECT_EQ(count_of(scan.out, " ok\n"), 8u) << scan;
}

// The GPU histogram and its GPU range queries against the CPU backend's, and --verify against CUB;
// without a GPU, --verify is refused.
TEST_F(CliBackendTest, HistogramOnTheGpuMatchesTheCpu) {
  const bool gpu = gpu_usable();
  // Multiples of 1/800 in [-1.25, 1.25]: some outside the range, none within rounding of a bin edge
  // of 256 bins over [-1, 1) (a scale of 128), so CUB and ours agree exactly.
  auto rng = lookback::test::make_rng(1637);
  std::vector<float> samples;
  for (int i = 0; i < 20000; ++i) samples.push_back(static_cast<float>(static_cast<int>(rng() % 2001) - 1000) / 800.f);
  write_input("samples.npy", array_of(samples));
  const std::vector<std::string> common{"histogram", "-i", arg("samples.npy"), "--bins", "256", "--range=-1:1",
                                        "--query", "0:255", "--query", "10:20"};
  const auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = common;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  if (!gpu) {
    const run_result r = run(with({"--verify", "-o", arg("v.npy")}));
    EXPECT_EQ(r.exit_code, ex_unavailable) << r;
    expect_one_error_line(r, "lookback histogram: ", "--verify");
    EXPECT_FALSE(fs::exists(path("v.npy")));
    return;
  }
  const run_result cpu = run(with({"--backend", "cpu", "-o", arg("cpu.npy")}));
  const run_result on_gpu = run(with({"--backend", "gpu", "-o", arg("gpu.npy")}));
  const run_result verified = run(with({"--verify", "-o", arg("v.npy")}));
  for (const run_result* r : {&cpu, &on_gpu, &verified}) EXPECT_EQ(r->exit_code, ex_ok) << *r;
  EXPECT_EQ(on_gpu.out, cpu.out);
  const auto lines = lines_of(verified.out);
  EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
    return contains(l, "outputs match") && contains(l, "cub");
  })) << verified;
  for (const char* name : {"gpu.npy", "v.npy"})
    EXPECT_EQ(elements<std::uint64_t>(read_output(name)), elements<std::uint64_t>(read_output("cpu.npy"))) << name;
}

// The GPU compaction against the CPU backend's, and --verify against CUB, by a predicate and by flags
// wider than a byte; without a GPU, --verify is refused.
TEST_F(CliBackendTest, CompactOnTheGpuMatchesTheCpu) {
  const bool gpu = gpu_usable();
  std::vector<float> values;
  std::vector<std::int16_t> flags;
  std::size_t positives = 0, flagged = 0;
  auto rng = lookback::test::make_rng(1677);
  for (int i = 0; i < 100003; ++i) {  // many tiles, the last one partial
    values.push_back(static_cast<float>(static_cast<int>(rng() % 2001) - 1000) / 8.f);
    flags.push_back(i % 3 == 0 ? 0 : 256);
    positives += values.back() > 0.5f;
    flagged += flags.back() != 0;
  }
  write_input("values.npy", array_of(values));
  write_input("flags.npy", array_of(flags));
  const std::pair<std::vector<std::string>, std::size_t> selections[] = {{{"--predicate", "gt:0.5"}, positives},
                                                                         {{"--flags", arg("flags.npy")}, flagged}};
  for (const auto& [how, kept] : selections) {
    SCOPED_TRACE(how[0]);
    const auto with = [&, &how = how](std::vector<std::string> extra) {
      std::vector<std::string> args{"compact", "-i", arg("values.npy")};
      args.insert(args.end(), how.begin(), how.end());
      args.insert(args.end(), extra.begin(), extra.end());
      return args;
    };
    if (!gpu) {
      const run_result r = run(with({"--verify", "-o", arg("v.npy")}));
      EXPECT_EQ(r.exit_code, ex_unavailable) << r;
      expect_one_error_line(r, "lookback compact: ", "--verify");
      EXPECT_FALSE(fs::exists(path("v.npy")));
      continue;
    }
    const run_result cpu = run(with({"--backend", "cpu", "-o", arg("cpu.npy")}));
    const run_result on_gpu = run(with({"--backend", "gpu", "-o", arg("gpu.npy")}));
    const run_result verified = run(with({"--verify", "-o", arg("v.npy")}));
    for (const run_result* r : {&cpu, &on_gpu, &verified}) {
      EXPECT_EQ(r->exit_code, ex_ok) << *r;
      EXPECT_TRUE(contains(r->out, ": kept " + std::to_string(kept) + " of 100003 float32 elements")) << *r;
    }
    const auto lines = lines_of(verified.out);
    EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
      return contains(l, "outputs match") && contains(l, "cub");
    })) << verified;
    EXPECT_EQ(read_output("cpu.npy").size(), static_cast<std::int64_t>(kept));
    for (const char* name : {"gpu.npy", "v.npy"}) EXPECT_EQ(read_output(name).bytes, read_output("cpu.npy").bytes) << name;
  }
}

// The GPU sort against the CPU backend's, and --verify against CUB, keys alone and in pairs of either
// value width, ascending, descending and on a bit range; without a GPU, --verify is refused.
TEST_F(CliBackendTest, SortOnTheGpuMatchesTheCpu) {
  const bool gpu = gpu_usable();
  std::vector<float> keys;
  std::vector<std::uint32_t> narrow;
  std::vector<double> wide;
  auto rng = lookback::test::make_rng(1725);
  for (int i = 0; i < 100003; ++i) {  // many tiles, the last one partial, and many equal keys
    keys.push_back(static_cast<float>(static_cast<int>(rng() % 2001) - 1000) / 8.f);
    narrow.push_back(static_cast<std::uint32_t>(i));
    wide.push_back(-i * 0.5);
  }
  write_input("keys.npy", array_of(keys));
  write_input("narrow.npy", array_of(narrow));
  write_input("wide.npy", array_of(wide));
  const struct {
    std::vector<std::string> options;
    const char* values;  // or null: keys only
  } variants[] = {
      {{}, nullptr},
      {{"--descending"}, nullptr},
      {{"--bits", "8:24"}, nullptr},
      {{}, "narrow.npy"},
      {{"--descending", "--bits", "20:32"}, "wide.npy"},
  };
  for (const auto& variant : variants) {
    SCOPED_TRACE(::testing::PrintToString(variant.options) + (variant.values ? variant.values : ""));
    const bool pairs = variant.values != nullptr;
    // Each run writes TAG.npy, and TAG.values.npy for pairs, over stale files: a run that writes
    // nothing shows.
    const auto with = [&](const std::string& tag, const std::vector<std::string>& extra) {
      for (const std::string& file : {tag + ".npy", tag + ".values.npy"}) write_file(path(file), "old");
      std::vector<std::string> args{"sort", "-i", arg("keys.npy"), "-o", arg(tag + ".npy")};
      if (pairs) args.insert(args.end(), {"--values", arg(variant.values), "--values-output", arg(tag + ".values.npy")});
      args.insert(args.end(), variant.options.begin(), variant.options.end());
      args.insert(args.end(), extra.begin(), extra.end());
      return args;
    };
    if (!gpu) {
      const run_result r = run(with("v", {"--verify"}));
      EXPECT_EQ(r.exit_code, ex_unavailable) << r;
      expect_one_error_line(r, "lookback sort: ", "--verify");
      EXPECT_EQ(read_file(path("v.npy")), "old");  // a refused run leaves what was there
      EXPECT_EQ(read_file(path("v.values.npy")), "old");
      continue;
    }
    const run_result cpu = run(with("cpu", {"--backend", "cpu"}));
    const run_result on_gpu = run(with("gpu", {"--backend", "gpu"}));
    const run_result verified = run(with("v", {"--verify"}));
    for (const run_result* r : {&cpu, &on_gpu, &verified}) EXPECT_EQ(r->exit_code, ex_ok) << *r;
    const auto lines = lines_of(verified.out);
    EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
      return contains(l, "outputs match") && contains(l, "cub");
    })) << verified;
    for (const char* tag : {"gpu", "v"}) {
      EXPECT_EQ(read_output(std::string(tag) + ".npy").bytes, read_output("cpu.npy").bytes) << tag;
      if (pairs) EXPECT_EQ(read_output(std::string(tag) + ".values.npy").bytes, read_output("cpu.values.npy").bytes) << tag;
    }
  }
}


}  // namespace
