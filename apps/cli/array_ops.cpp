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

}  // namespace lookback::cli
