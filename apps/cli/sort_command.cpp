#include "cli/array_files.hpp"
#include "cli/array_ops.hpp"
#include "cli/cli_error.hpp"
#include "cli/commands.hpp"
#include "cli/common_options.hpp"
#include "cli/exit_codes.hpp"
#include "io/atomic_file.hpp"
#include "typed/sort_ops.hpp"

#include <filesystem>
#include <iostream>
#include <optional>
#include <vector>

namespace lookback::cli {
namespace {

/// The values to move with `keys`: one per key, the keys' shape, as NumPy pairs x[order] with y[order].
io::host_array load_values(const std::string& path, const std::string& raw_dtype, const std::string& keys_path,
                           const io::host_array& keys) {
  io::host_array values = load_array(path, raw_dtype, "--values-dtype");
  require_dtype(path, values, typed::is_sort_value, typed::sort_value_list(), "values ");
  if (values.shape != keys.shape)
    throw cli_error(exit_code::data_error, path + ": values of shape " + io::shape_string(values.shape) +
                                               " do not match the keys' shape " + io::shape_string(keys.shape) + " in " +
                                               keys_path);
  return values;
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

}  // namespace

int sort_command(const args& a) {
  common_options common;
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
  const auto vm = parse_options(
      a, desc, "lookback sort -i K.npy -o SK.npy [--values V.npy --values-output SV.npy] [--descending] [--bits B:E]");
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
  const backend b = resolve_backend(common);
  const io::host_array keys = load_array(input, common.dtype);
  require_dtype(input, keys, typed::is_sort_key, typed::sort_key_list());

  typed::sort_spec spec{keys.type, 0, descending, 0, typed::key_bits(keys.type)};
  if (vm->count("bits") != 0)
    if (const auto problem = typed::parse_bits(bits, spec)) throw cli_error(exit_code::usage, *problem);
  std::optional<io::host_array> values;
  if (with_values) {
    values = load_values(values_path, values_dtype, input, keys);
    spec.value_bytes = static_cast<int>(io::dtype_size(values->type));
  }
  if ((b == backend::gpu || common.verify) && keys.size() > typed::max_gpu_sort_items)
    throw cli_error(exit_code::data_error, input + ": " + std::to_string(keys.size()) +
                                               " keys; the GPU sort takes at most " +
                                               std::to_string(typed::max_gpu_sort_items) + " (--backend cpu sorts more)");

  const sort_result r = sort_arrays(keys, values ? &*values : nullptr, spec, b, common.verify);
  std::vector<output_array> written{{output, &r.keys}};
  if (values) written.push_back({values_output, &*r.values});
  save_arrays(written, inputs);
  std::cout << "sort " << describe(spec) << ": " << keys.size() << " " << io::dtype_name(keys.type) << " keys";
  if (values) std::cout << " with " << io::dtype_name(values->type) << " values";
  std::cout << " -> " << output << (values ? ", " + values_output : std::string()) << "\n";
  if (r.verified) std::cout << verification_line(*r.verified, "sort " + describe(spec)) << "\n";
  return exit_code::ok;
}

}  // namespace lookback::cli
