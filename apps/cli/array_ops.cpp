#include "cli/array_ops.hpp"

#include "cli/gpu_run.hpp"
#include "typed/compare.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <stdexcept>

namespace lookback::cli {

std::string describe(const typed::scan_spec& spec) {
  return std::string(spec.deterministic ? "deterministic " : "") + (spec.inclusive ? "inclusive " : "exclusive ") +
         std::string(typed::op_name(spec.op));
}

std::string describe(const typed::select_spec& spec) {
  if (spec.flagged) return "by flags";
  if (spec.compare == typed::compare_kind::nonzero) return "nonzero";
  return std::string(typed::compare_name(spec.compare)) + ":" + typed::format_scalar(spec.value);
}

std::string describe(const typed::sort_spec& spec) {
  std::string text = spec.descending ? "descending" : "ascending";
  if (spec.begin_bit != 0 || spec.end_bit != typed::key_bits(spec.key))
    text += " on bits " + std::to_string(spec.begin_bit) + ":" + std::to_string(spec.end_bit);
  return text;
}

namespace {
/// Every operation's shape: the CPU reference alone, or the GPU (lookback's, and CUB's with --verify)
/// with the CPU recomputing the output when it is the chosen backend.
op_result run_backend(const io::host_array& input, io::host_array output, backend b, bool verify,
                      const std::function<void(void* out)>& cpu, const gpu_call& call, const output_check& check,
                      const std::string& what) {
  if (b == backend::cpu && !verify) {
    cpu(output.bytes.data());
    return {output, std::nullopt};
  }
  gpu_result r = run_on_gpu(input, output.bytes.size(), call, verify, check);
  if (r.verified) check_verification(*r.verified, what);
  if (b == backend::cpu)
    cpu(output.bytes.data());
  else
    output.bytes = std::move(r.output);
  return {output, r.verified};
}
}  // namespace

op_result reduce_array(const io::host_array& input, typed::op_kind op, backend b, bool verify, const memory_caps& caps) {
  pipelines::host_source in(input.bytes.data(), input.size(), io::dtype_size(input.type));
  io::host_array out{input.type, {1}, std::vector<std::byte>(io::dtype_size(input.type))};
  const streamed r = reduce_streamed(input.type, op, in, out.bytes.data(), {b, verify, caps, {}});
  return {out, r.verified};
}

op_result scan_array(const io::host_array& input, const typed::scan_spec& spec, backend b, bool verify,
                     const memory_caps& caps) {
  const std::size_t width = io::dtype_size(input.type);
  pipelines::host_source in(input.bytes.data(), input.size(), width);
  io::host_array out{input.type, input.shape, std::vector<std::byte>(input.bytes.size())};
  pipelines::host_sink sink(out.bytes.data(), width);
  const streamed r = scan_streamed(spec, in, sink, {b, verify, caps, {}});
  return {out, r.verified};
}

std::vector<std::uint64_t> widen(const io::host_array& counts) {
  std::vector<std::uint64_t> out(static_cast<std::size_t>(counts.size()));
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = counts.type == io::dtype::uint32 ? counts.as<std::uint32_t>()[i] : counts.as<std::uint64_t>()[i];
  return out;
}

op_result histogram_array(const io::host_array& samples, const typed::histogram_spec& spec, backend b, bool verify,
                          const memory_caps& caps) {
  pipelines::host_source in(samples.bytes.data(), samples.size(), io::dtype_size(samples.type));
  io::host_array out{spec.counter, {spec.num_bins},
                     std::vector<std::byte>(static_cast<std::size_t>(spec.num_bins) * io::dtype_size(spec.counter))};
  const streamed r = histogram_streamed(spec, in, out.bytes.data(), {b, verify, caps, {}});
  return {out, r.verified};
}

namespace {
/// Where the second part of a packed buffer starts: on a 256-byte boundary, as a buffer of its own from
/// cudaMalloc would, so that both implementations take their aligned (vector) paths on each part.
std::size_t second_part(std::size_t first_part_bytes) { return (first_part_bytes + 255) / 256 * 256; }

/// The part of a packed device buffer at `offset`; null for the size query, which passes null buffers.
template <class T>
T* part_at(T* buffer, std::size_t offset) {
  return buffer == nullptr ? nullptr : buffer + offset;
}

/// `first`'s bytes, then `second_bytes` from `second` at second_part: one buffer for run_backend.
io::host_array packed(const io::host_array& first, const void* second, std::size_t second_bytes) {
  const std::size_t second_at = second_part(first.bytes.size());
  io::host_array both{io::dtype::uint8, {static_cast<std::int64_t>(second_at + second_bytes)},
                      std::vector<std::byte>(second_at + second_bytes)};
  std::copy(first.bytes.begin(), first.bytes.end(), both.bytes.begin());
  if (second_bytes > 0) std::memcpy(both.bytes.data() + second_at, second, second_bytes);
  return both;
}

/// `count` elements of `type` copied from `bytes`, as a 1-D array.
io::host_array part_of(const std::vector<std::byte>& bytes, std::size_t at, io::dtype type, std::int64_t count) {
  const auto first = bytes.begin() + static_cast<std::ptrdiff_t>(at);
  return {type, {count}, std::vector<std::byte>(first, first + count * static_cast<std::int64_t>(io::dtype_size(type)))};
}
}  // namespace

op_result compact_array(const io::host_array& values, const typed::select_spec& spec,
                        const std::vector<std::uint8_t>& flags, backend b, bool verify, const memory_caps& caps) {
  const std::int64_t n = values.size();
  const std::size_t width = io::dtype_size(values.type);
  pipelines::host_source in(values.bytes.data(), n, width);
  pipelines::host_source flag_source(flags.data(), spec.flagged ? n : 0, 1);
  io::host_array out{values.type, {n}, std::vector<std::byte>(values.bytes.size())};
  pipelines::host_sink sink(out.bytes.data(), width);
  const streamed r = compact_streamed(spec, in, spec.flagged ? &flag_source : nullptr, sink, {b, verify, caps, {}});
  out.shape = {r.kept};
  out.bytes.resize(static_cast<std::size_t>(r.kept) * width);
  return {out, r.verified};
}

// Pairs pack their keys and values into each buffer, the values at second_part of the keys.
sort_result sort_arrays(const io::host_array& keys, const io::host_array* values, const typed::sort_spec& spec,
                        backend b, bool verify) {
  const std::int64_t n = keys.size();
  const std::size_t key_width = io::dtype_size(keys.type), value_width = static_cast<std::size_t>(spec.value_bytes);
  if (value_width != (values != nullptr ? io::dtype_size(values->type) : 0))
    throw std::invalid_argument("sort_arrays: spec.value_bytes does not match the values given");
  const std::size_t values_at = second_part(keys.bytes.size());
  const std::size_t output_bytes = values != nullptr ? values_at + values->bytes.size() : keys.bytes.size();
  const auto key_at = [&](const std::byte* out, std::int64_t i) {
    return "key " + typed::format_key(keys.type, out + i * key_width);
  };
  const auto value_at = [&](const std::byte* out, std::int64_t i) {
    return "value " + typed::format_scalar(typed::load_scalar(values->type, out + values_at + i * value_width));
  };
  const io::host_array pairs =
      values != nullptr ? packed(keys, values->bytes.data(), values->bytes.size()) : io::host_array{};
  op_result r = run_backend(
      values != nullptr ? pairs : keys,
      io::host_array{io::dtype::uint8, {static_cast<std::int64_t>(output_bytes)}, std::vector<std::byte>(output_bytes)},
      b, verify,
      [&](void* out) {
        auto* o = static_cast<std::byte*>(out);
        typed::sort_cpu(spec, keys.bytes.data(), o, values != nullptr ? values->bytes.data() : nullptr, o + values_at, n);
      },
      [&](typed::implementation impl, void* d_temp, std::size_t& temp, const void* d_in, void* d_out, cudaStream_t s) {
        const auto* in = static_cast<const std::byte*>(d_in);
        auto* out = static_cast<std::byte*>(d_out);
        typed::sort(impl, spec, d_temp, temp, in, out, part_at(in, values_at), part_at(out, values_at), n, s);
      },
      // A sort only moves keys and values, so CUB's and ours must agree bit for bit (NaNs included).
      [&](const void* expected, const void* actual) -> std::optional<typed::mismatch> {
        const auto* e = static_cast<const std::byte*>(expected);
        const auto* a = static_cast<const std::byte*>(actual);
        for (std::int64_t i = 0; i < n; ++i)
          if (std::memcmp(e + i * key_width, a + i * key_width, key_width) != 0)
            return typed::mismatch{i, key_at(e, i), key_at(a, i)};
        for (std::int64_t i = 0; i < n && values != nullptr; ++i)
          if (std::memcmp(e + values_at + i * value_width, a + values_at + i * value_width, value_width) != 0)
            return typed::mismatch{i, value_at(e, i), value_at(a, i)};
        return std::nullopt;
      },
      "sort " + describe(spec));
  sort_result sorted{part_of(r.output.bytes, 0, keys.type, n), std::nullopt, r.verified};
  if (values != nullptr) sorted.values = part_of(r.output.bytes, values_at, values->type, n);
  return sorted;
}

}  // namespace lookback::cli
