#include "cli/gpu_run.hpp"

#include "cli/cli_error.hpp"
#include "cli/device_memory.hpp"
#include "cli/exit_codes.hpp"
#include "typed/gpu_timing.hpp"

#include <lookback/primitives/device_buffer.cuh>
#include <lookback/primitives/stream.cuh>

#include <cstdio>

namespace lookback::cli {
namespace {
struct run_output {
  std::vector<std::byte> bytes;
  float ms = 0;
};

/// The implementation's temporary storage, asked before anything is allocated (with null buffers).
std::size_t temp_bytes_of(typed::implementation impl, const gpu_call& call, const cuda_stream& stream) {
  std::size_t temp_bytes = 0;
  call(impl, nullptr, temp_bytes, nullptr, nullptr, stream);
  return temp_bytes;
}

run_output run_one(typed::implementation impl, const gpu_call& call, const device_buffer<std::byte>& d_in,
                   std::size_t output_bytes, std::size_t temp_bytes, bool timed, const cuda_stream& stream) {
  device_buffer<std::byte> d_out(output_bytes, stream);
  // Poisoned, and differently for each implementation: the pool may hand CUB the block ours just
  // freed, and an element neither wrote would then hold ours and compare equal.
  d_out.fill_bytes(impl == typed::implementation::lookback ? 0xAB : 0x54);
  device_buffer<std::byte> d_temp(temp_bytes, stream);
  const auto work = [&] { call(impl, d_temp.data(), temp_bytes, d_in.data(), d_out.data(), stream); };
  run_output out;
  if (timed)
    out.ms = typed::median_time_ms(stream, work);
  else
    work();
  out.bytes = to_host(d_out);
  return out;
}
}  // namespace

gpu_result run_on_gpu(const io::host_array& input, std::size_t output_bytes, const gpu_call& call, bool verify,
                      const output_check& check) {
  const cuda_stream stream;
  const std::size_t ours_temp = temp_bytes_of(typed::implementation::lookback, call, stream);
  const std::size_t cub_temp = verify ? temp_bytes_of(typed::implementation::cub, call, stream) : 0;
  // CUB runs after ours on the same stream and may reuse what ours freed, but the pool need not hand
  // it back in one piece: both count.
  const std::size_t needed = input.bytes.size() + output_bytes + ours_temp + cub_temp;
  return within_device_memory(
      needed, verify ? "input, output, and lookback's and CUB's temporary storage" : "input, output and temporary storage",
      [&] {
        const device_buffer<std::byte> d_in = to_device(input.bytes, stream);
        run_output ours = run_one(typed::implementation::lookback, call, d_in, output_bytes, ours_temp, verify, stream);
        gpu_result result;
        if (verify) {
          const run_output cub = run_one(typed::implementation::cub, call, d_in, output_bytes, cub_temp, true, stream);
          result.verified = verification{ours.ms, cub.ms, check(cub.bytes.data(), ours.bytes.data())};
        }
        result.output = std::move(ours.bytes);
        return result;
      });
}

std::string verification_line(const verification& v, const std::string& what) {
  char line[256];
  const char* verdict = v.exact ? (v.mismatch ? "MISMATCH with the CPU's deterministic association"
                                               : "bit for bit the CPU's deterministic association")
                                 : (v.mismatch ? "MISMATCH" : "outputs match");
  std::snprintf(line, sizeof line, "verify %s: lookback %.4f ms, cub %.4f ms, lookback/cub speed %.2fx: %s", what.c_str(),
                v.lookback_ms, v.cub_ms, v.lookback_ms > 0 ? v.cub_ms / v.lookback_ms : 0.0, verdict);
  return line;
}

void check_verification(const verification& v, const std::string& what) {
  if (!v.mismatch) return;
  const std::string counted_in = v.mismatch->counted_in.empty() ? "" : " " + v.mismatch->counted_in;
  throw cli_error(exit_code::software, verification_line(v, what) + " at element " + std::to_string(v.mismatch->index) +
                                           counted_in + ": " + (v.exact ? "cpu " : "cub ") + v.mismatch->expected + ", lookback " +
                                           v.mismatch->actual);
}

}  // namespace lookback::cli
