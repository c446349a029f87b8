#include "cli/array_ops.hpp"

#include "cli/gpu_run.hpp"
#include "typed/compare.hpp"

#include <functional>

namespace lookback::cli {

std::string describe(const typed::scan_spec& spec) {
  return std::string(spec.inclusive ? "inclusive " : "exclusive ") + std::string(typed::op_name(spec.op));
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

op_result reduce_array(const io::host_array& input, typed::op_kind op, backend b, bool verify) {
  const std::int64_t n = input.size();
  return run_backend(
      input, io::host_array{input.type, {1}, std::vector<std::byte>(io::dtype_size(input.type))}, b, verify,
      [&](void* out) { typed::reduce_cpu(input.type, op, input.bytes.data(), out, n); },
      [&](typed::implementation impl, void* d_temp, std::size_t& bytes, const void* d_in, void* d_out, cudaStream_t s) {
        typed::reduce(impl, input.type, op, d_temp, bytes, d_in, d_out, n, s);
      },
      [&](const void* expected, const void* actual) {
        return typed::reduce_mismatch(input.type, op, input.bytes.data(), n, expected, actual);
      },
      "reduce " + std::string(typed::op_name(op)));
}

op_result scan_array(const io::host_array& input, const typed::scan_spec& spec, backend b, bool verify) {
  const std::int64_t n = input.size();
  return run_backend(
      input, io::host_array{input.type, input.shape, std::vector<std::byte>(input.bytes.size())}, b, verify,
      [&](void* out) { typed::scan_cpu(spec, input.bytes.data(), out, n); },
      [&](typed::implementation impl, void* d_temp, std::size_t& bytes, const void* d_in, void* d_out, cudaStream_t s) {
        typed::scan(impl, spec, d_temp, bytes, d_in, d_out, n, s);
      },
      [&](const void* expected, const void* actual) {
        return typed::first_scan_mismatch(spec, input.bytes.data(), expected, actual, n);
      },
      describe(spec) + " scan");
}

std::vector<std::uint64_t> widen(const io::host_array& counts) {
  std::vector<std::uint64_t> out(static_cast<std::size_t>(counts.size()));
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = counts.type == io::dtype::uint32 ? counts.as<std::uint32_t>()[i] : counts.as<std::uint64_t>()[i];
  return out;
}

op_result histogram_array(const io::host_array& samples, const typed::histogram_spec& spec, backend b, bool verify) {
  const int bins = spec.num_bins;
  const std::int64_t n = samples.size();
  const std::size_t bytes = static_cast<std::size_t>(bins) * io::dtype_size(spec.counter);
  const auto as_counts = [&](const void* p) {
    io::host_array a{spec.counter, {bins}, {}};
    a.bytes.assign(static_cast<const std::byte*>(p), static_cast<const std::byte*>(p) + bytes);
    return widen(a);
  };
  return run_backend(
      samples, io::host_array{spec.counter, {bins}, std::vector<std::byte>(bytes)}, b, verify,
      [&](void* out) { typed::histogram_even_cpu(spec, samples.bytes.data(), n, out); },
      [&](typed::implementation impl, void* d_temp, std::size_t& temp, const void* d_in, void* d_out, cudaStream_t s) {
        typed::histogram_even(impl, spec, d_temp, temp, d_in, n, d_out, s);
      },
      [&](const void* expected, const void* actual) -> std::optional<typed::mismatch> {
        const auto want = as_counts(expected), got = as_counts(actual);
        for (int i = 0; i < bins; ++i)
          if (want[i] != got[i]) return typed::mismatch{i, std::to_string(want[i]), std::to_string(got[i])};
        return std::nullopt;
      },
      "histogram");
}

}  // namespace lookback::cli
