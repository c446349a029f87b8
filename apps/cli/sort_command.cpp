#include "cli/array_dist.hpp"
#include "cli/array_files.hpp"
#include "cli/array_ops.hpp"
#include "cli/array_stream.hpp"
#include "cli/cli_error.hpp"
#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/exit_codes.hpp"
#include "cli/progress_bar.hpp"
#include "io/atomic_file.hpp"
#include "typed/sort_ops.hpp"

#include <lookback/pipelines/spill_store.hpp>

#include <filesystem>
#include <iostream>
#include <optional>
#include <vector>

namespace lookback::cli {
namespace {

/// The values must have the keys' shape, as NumPy pairs x[order] with y[order].
/// A spill file goes beside the output (beside the file a link names, as the output itself), where the
/// user chose to have room; an output that is a device or a pipe (-o /dev/null) says nothing of room,
/// and its folder may be small or in memory: the library's default place then.
std::filesystem::path spill_directory_for(const std::filesystem::path& output) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(output, ec);
  if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
    return pipelines::default_spill_directory();
  const std::filesystem::path target = io::write_target(output, ec);
  return (ec ? std::filesystem::absolute(output) : target).parent_path();
}

void check_values(const array_file& values, const array_file& keys) {
  require_dtype(values.path, values.type, typed::is_sort_value, typed::sort_value_list(), "values ");
  if (values.shape != keys.shape)
    throw cli_error(exit_code::data_error, values.path.string() + ": values of shape " + io::shape_string(values.shape) +
                                               " do not match the keys' shape " + io::shape_string(keys.shape) + " in " +
                                               keys.path.string());
}

/// No output may overwrite an input, nor the values' output the keys'.
void refuse_clobbering(const std::vector<std::filesystem::path>& inputs,
                       const std::vector<std::filesystem::path>& outputs) {
  for (const auto& output : outputs)
    for (const auto& input : inputs) io::refuse_same_file(input, output);
  if (outputs.size() == 2 && io::same_file(outputs[0], outputs[1]))
    throw cli_error(exit_code::cant_create,
                    outputs[1].string() + ": --values-output is the same file as --output; refusing to write both there");
}

void print_summary(const typed::sort_spec& spec, const array_file& keys, const array_file* values,
                   const std::string& output, const std::string& values_output, const std::string& how) {
  std::cout << "sort " << describe(spec) << ": " << keys.size() << " " << io::dtype_name(keys.type) << " keys";
  if (values != nullptr) std::cout << " with " << io::dtype_name(values->type) << " values";
  std::cout << " -> " << output << (values != nullptr ? ", " + values_output : std::string()) << " (" << how << ")\n";
}

int sort_across_ranks(launch& l, const args& a, const typed::sort_spec& spec, const array_file& keys,
                      const array_file* values, const std::string& output, const std::string& values_output,
                      const stream_settings& settings, const std::filesystem::path& spill_directory) {
  const std::int64_t n = keys.size();
  l.ready("sort", a, input_signature(keys) + (values != nullptr ? input_signature(*values) : std::string()));
  shared_output keys_out(l, output, keys.type, {n}, settings.verify);
  std::optional<shared_output> values_out;
  if (values != nullptr)
    values_out.emplace(l, values_output, values->type, std::vector<std::int64_t>{n}, settings.verify);
  pipelines::file_source key_source = keys.source();
  std::optional<pipelines::file_source> value_source;
  if (values != nullptr) value_source.emplace(values->source());
  const dist_outcome r = sort_distributed(l, spec, key_source, value_source ? &*value_source : nullptr, keys_out,
                                          values_out ? &*values_out : nullptr,
                                          values != nullptr ? values->type : io::dtype::uint8, settings, spill_directory);
  if (!l.root()) return exit_code::ok;
  const std::size_t item = io::dtype_size(keys.type) + static_cast<std::size_t>(spec.value_bytes);
  print_summary(spec, keys, values, output, values_output, describe_run(l, r, item, true));
  print_checks(std::cout, l, r, "sort " + describe(spec));
  return exit_code::ok;
}

}  // namespace

int sort_command(const args& a) {
  common_options common;
  memory_options memory;
  launch_options launching;
  std::string input, output, values_path, values_dtype, values_output, bits;
  bool descending = false;
  po::options_description desc("sort options");
  desc.add_options()
      ("input,i", po::value(&input)->required(),
       "keys (.npy, or raw with --dtype): uint8, uint16, uint32, int32, float32, uint64, int64, float64")
      ("output,o", po::value(&output)->required(), "the sorted keys, 1-D (.npy, or raw bytes for any other name)")
      ("values", po::value(&values_path), "values to move with their keys: any dtype of 4 or 8 bytes, the keys' shape")
      ("values-dtype", po::value(&values_dtype), "element type of raw (non-.npy) --values")
      ("values-output", po::value(&values_output), "the values in their keys' sorted order, 1-D")
      ("descending", po::bool_switch(&descending), "largest keys first (default: ascending); equal keys keep their order")
      ("bits", po::value(&bits), "B:E, sort on bits [B, E) of the keys' order-preserving bit pattern (default: all)");
  add_common_options(desc, common);
  add_memory_options(desc, memory);
  add_launch_options(desc, launching);
  const auto vm = parse_options(a, desc,
                                "lookback sort -i K.npy -o SK.npy [--values V.npy [--values-dtype T] --values-output SV.npy] [--descending] "
                                "[--bits B:E] [--gpus N | --distributed]");
  if (!vm) return exit_code::ok;

  const bool with_values = vm->count("values") != 0;
  if (with_values != (vm->count("values-output") != 0))
    throw cli_error(exit_code::usage, with_values ? "--values needs --values-output, the file for the sorted values"
                                                  : "--values-output needs --values, the values to sort");
  if (vm->count("values-dtype") != 0 && !with_values)
    throw cli_error(exit_code::usage, "--values-dtype applies to --values only");
  std::vector<std::filesystem::path> inputs{input}, outputs{output};
  if (with_values) {
    inputs.emplace_back(values_path);
    outputs.emplace_back(values_output);
  }
  refuse_clobbering(inputs, outputs);
  const backend b = resolve_backend(common, launching, memory);
  launch l(launching, b);
  const array_file keys(input, common.dtype);
  require_dtype(input, keys.type, typed::is_sort_key, typed::sort_key_list());

  typed::sort_spec spec{keys.type, 0, descending, 0, typed::key_bits(keys.type)};
  if (vm->count("bits") != 0)
    if (const auto problem = typed::parse_bits(bits, spec)) throw cli_error(exit_code::usage, *problem);
  std::optional<array_file> values;
  if (with_values) {
    values.emplace(values_path, values_dtype, "--values-dtype");
    check_values(*values, keys);
    spec.value_bytes = static_cast<int>(io::dtype_size(values->type));
  }

  const std::int64_t n = keys.size();
  const std::filesystem::path spill_directory = spill_directory_for(output);
  if (l.active()) return sort_across_ranks(l, a, spec, keys, values ? &*values : nullptr, output, values_output,
                                           stream_settings_for(b, common, memory, nullptr), spill_directory);
  array_output keys_out(output, keys.type, {n});
  std::optional<array_output> values_out;
  if (values) values_out.emplace(values_output, values->type, std::vector<std::int64_t>{n});
  const std::size_t item = io::dtype_size(keys.type) + static_cast<std::size_t>(spec.value_bytes);
  progress_bar bar("lookback sort", n, static_cast<std::uint64_t>(n) * item >= long_run_bytes);
  stream_settings settings = stream_settings_for(b, common, memory, nullptr);
  // An external sort reads its data more than once: the bar shows the share of all its passes done.
  settings.progress = [&bar, n](std::int64_t done, std::int64_t total) {
    bar.update(total > 0 ? static_cast<std::int64_t>(static_cast<double>(done) / static_cast<double>(total) * n) : n);
  };
  pipelines::file_source key_source = keys.source();
  pipelines::file_sink key_sink = keys_out.sink();
  std::optional<pipelines::file_source> value_source;
  std::optional<pipelines::file_sink> value_sink;
  if (values) {
    value_source.emplace(values->source());
    value_sink.emplace(values_out->sink());
  }
  const streamed r = sort_streamed(spec, key_source, value_source ? &*value_source : nullptr, key_sink,
                                   value_sink ? &*value_sink : nullptr, settings, spill_directory);
  keys_out.commit({n});
  if (values_out) values_out->commit({n});
  print_summary(spec, keys, values ? &*values : nullptr, output, values_output, pipelines::describe(r.sorted));
  if (r.verified) std::cout << verification_line(*r.verified, "sort " + describe(spec)) << "\n";
  return exit_code::ok;
}

}  // namespace lookback::cli
