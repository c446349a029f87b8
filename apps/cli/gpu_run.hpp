#pragma once
// The GPU side of a command: upload the input, run lookback's implementation and, with --verify,
// CUB's on the same data, time both, download and compare.
#include "io/array.hpp"
#include "typed/compare.hpp"
#include "typed/typed_ops.hpp"

#include <cuda_runtime_api.h>

#include <functional>
#include <optional>

namespace lookback::cli {

/// One CUB-style call of an implementation: a null d_temp asks for the temporary size, with null d_in
/// and d_out too (it comes before any allocation).
using gpu_call = std::function<void(typed::implementation, void* d_temp, std::size_t& temp_bytes, const void* d_in,
                                    void* d_out, cudaStream_t stream)>;
/// Compares CUB's output (expected) with lookback's (actual).
using output_check = std::function<std::optional<typed::mismatch>(const void* expected, const void* actual)>;

struct verification {
  float lookback_ms = 0;
  float cub_ms = 0;
  std::optional<typed::mismatch> mismatch;
  bool exact = false;  // the reference was the CPU's deterministic association, bit for bit
};

struct gpu_result {
  std::vector<std::byte> output;
  std::optional<verification> verified;
};

/// Refuses, before allocating anything, work that does not fit in the device's free memory (input,
/// output and temporary storage; see device_memory.hpp): a cli_error with exit code os_error.
gpu_result run_on_gpu(const io::host_array& input, std::size_t output_bytes, const gpu_call& call, bool verify,
                      const output_check& check);

/// Throws (exit code: software) when the outputs differ, naming the first differing element.
void check_verification(const verification& v, const std::string& what);

/// "verify reduce sum: lookback X ms, cub Y ms, lookback/cub speed Z.ZZx: outputs match"
std::string verification_line(const verification& v, const std::string& what);

}  // namespace lookback::cli
