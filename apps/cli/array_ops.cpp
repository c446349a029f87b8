#include "cli/array_ops.hpp"

#include "cli/gpu_run.hpp"
#include "typed/compare.hpp"

namespace lookback::cli {

std::string describe(const typed::scan_spec& spec) {
  return std::string(spec.inclusive ? "inclusive " : "exclusive ") + std::string(typed::op_name(spec.op));
}

op_result reduce_array(const io::host_array& input, typed::op_kind op, backend b, bool verify) {
  io::host_array result{input.type, {1}, std::vector<std::byte>(io::dtype_size(input.type))};
  const std::int64_t n = input.size();
  if (b == backend::cpu && !verify) {
    typed::reduce_cpu(input.type, op, input.bytes.data(), result.bytes.data(), n);
    return {result, std::nullopt};
  }
  const auto call = [&](typed::implementation impl, void* d_temp, std::size_t& bytes, const void* d_in, void* d_out,
                        cudaStream_t s) { typed::reduce(impl, input.type, op, d_temp, bytes, d_in, d_out, n, s); };
  const auto check = [&](const void* expected, const void* actual) {
    return typed::reduce_mismatch(input.type, op, input.bytes.data(), n, expected, actual);
  };
  gpu_result r = run_on_gpu(input, result.bytes.size(), call, verify, check);
  if (r.verified) check_verification(*r.verified, "reduce " + std::string(typed::op_name(op)));
  if (b == backend::cpu)
    typed::reduce_cpu(input.type, op, input.bytes.data(), result.bytes.data(), n);
  else
    result.bytes = std::move(r.output);
  return {result, r.verified};
}

op_result scan_array(const io::host_array& input, const typed::scan_spec& spec, backend b, bool verify) {
  io::host_array result{input.type, input.shape, std::vector<std::byte>(input.bytes.size())};
  const std::int64_t n = input.size();
  if (b == backend::cpu && !verify) {
    typed::scan_cpu(spec, input.bytes.data(), result.bytes.data(), n);
    return {result, std::nullopt};
  }
  const auto call = [&](typed::implementation impl, void* d_temp, std::size_t& bytes, const void* d_in, void* d_out,
                        cudaStream_t s) { typed::scan(impl, spec, d_temp, bytes, d_in, d_out, n, s); };
  const auto check = [&](const void* expected, const void* actual) {
    return typed::first_scan_mismatch(spec, input.bytes.data(), expected, actual, n);
  };
  gpu_result r = run_on_gpu(input, result.bytes.size(), call, verify, check);
  if (r.verified) check_verification(*r.verified, describe(spec) + " scan");
  if (b == backend::cpu)
    typed::scan_cpu(spec, input.bytes.data(), result.bytes.data(), n);
  else
    result.bytes = std::move(r.output);
  return {result, r.verified};
}

std::vector<std::uint64_t> widen(const io::host_array& counts) {
  std::vector<std::uint64_t> out(static_cast<std::size_t>(counts.size()));
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = counts.type == io::dtype::uint32 ? counts.as<std::uint32_t>()[i] : counts.as<std::uint64_t>()[i];
  return out;
}

op_result histogram_array(const io::host_array& samples, const typed::histogram_spec& spec, backend b, bool verify) {
  const int bins = spec.num_bins;
  io::host_array counts{spec.counter, {bins}, std::vector<std::byte>(static_cast<std::size_t>(bins) * io::dtype_size(spec.counter))};
  if (b == backend::cpu && !verify) {
    typed::histogram_even_cpu(spec, samples.bytes.data(), samples.size(), counts.bytes.data());
    return {counts, std::nullopt};
  }
  const std::int64_t n = samples.size();
  const auto call = [&](typed::implementation impl, void* d_temp, std::size_t& bytes, const void* d_in, void* d_out,
                        cudaStream_t s) { typed::histogram_even(impl, spec, d_temp, bytes, d_in, n, d_out, s); };
  const auto check = [&](const void* expected, const void* actual) -> std::optional<typed::mismatch> {
    const auto as_counts = [&](const void* p) {
      io::host_array a{spec.counter, {bins}, {}};
      a.bytes.assign(static_cast<const std::byte*>(p), static_cast<const std::byte*>(p) + counts.bytes.size());
      return widen(a);
    };
    const auto want = as_counts(expected), got = as_counts(actual);
    for (int i = 0; i < bins; ++i)
      if (want[i] != got[i]) return typed::mismatch{i, std::to_string(want[i]), std::to_string(got[i])};
    return std::nullopt;
  };
  gpu_result r = run_on_gpu(samples, counts.bytes.size(), call, verify, check);
  if (r.verified) check_verification(*r.verified, "histogram");
  if (b == backend::cpu)
    typed::histogram_even_cpu(spec, samples.bytes.data(), samples.size(), counts.bytes.data());
  else
    counts.bytes = std::move(r.output);
  return {counts, r.verified};
}

}  // namespace lookback::cli
