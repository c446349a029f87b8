#pragma once
// Runs a typed reduce or scan on the GPU with a poisoned output (two poisons for 1- and 2-byte types)
// and returns the output bytes.
#include "io/array.hpp"
#include "support/gpu_test.hpp"
#include "typed/typed_ops.hpp"

#include <lookback/primitives/device_buffer.cuh>
#include <lookback/primitives/stream.cuh>

#include <cstring>
#include <vector>

namespace lookback::test {

template <class Call>
std::vector<std::byte> run_typed(const io::host_array& input, std::size_t output_bytes, Call call) {
  const cuda_stream stream;
  const auto d_in = to_device(input.bytes, stream);
  device_buffer<std::byte> d_out(output_bytes, stream);
  std::size_t temp_bytes = 0;
  call(nullptr, temp_bytes, d_in.data(), d_out.data(), stream.get());
  device_buffer<std::byte> d_temp(temp_bytes, stream);
  // Integer results repeat exactly, so a second poison's run (1- and 2-byte types) must give the same
  // bytes: an element never written would differ.
  std::vector<std::byte> first;
  // Floats, checked within a tolerance, take NaN, which passes none (poison_byte's float, about
  // -1.2e-12, could pass near a zero sum); one run, since a float scan's last bits may vary.
  for (const int poison : io::is_floating(input.type) ? std::vector<int>{0xFF} : poisons_for(io::dtype_size(input.type))) {
    d_out.fill_bytes(poison);
    call(d_temp.data(), temp_bytes, d_in.data(), d_out.data(), stream.get());
    auto got = to_host(d_out);
    if (first.empty()) first = std::move(got);
    else EXPECT_TRUE(got == first) << io::dtype_name(input.type) << ": the output differs under a second poison, so an "
                                   << "element is never written";
  }
  return first;
}

inline std::vector<std::byte> gpu_scan(typed::implementation impl, const typed::scan_spec& spec,
                                       const io::host_array& input) {
  return run_typed(input, input.bytes.size(), [&](void* t, std::size_t& b, const void* i, void* o, cudaStream_t s) {
    typed::scan(impl, spec, t, b, i, o, input.size(), s);
  });
}

inline std::vector<std::byte> gpu_reduce(typed::implementation impl, typed::op_kind op, const io::host_array& input) {
  return run_typed(input, io::dtype_size(input.type), [&](void* t, std::size_t& b, const void* i, void* o, cudaStream_t s) {
    typed::reduce(impl, input.type, op, t, b, i, o, input.size(), s);
  });
}

/// Look-back races show up as rare errors that move between runs: runs `call` (a CUB-style typed
/// scan, temporary storage queried with a null pointer) `runs` times on one input, poisoning the
/// output each time, and requires every run to equal `expected` byte for byte.
template <class Call>
void expect_repeated_runs_exact(const io::host_array& input, const std::vector<std::byte>& expected, int runs,
                                Call call) {
  const cuda_stream stream;
  const auto d_in = to_device(input.bytes, stream);
  device_buffer<std::byte> d_out(input.bytes.size(), stream);
  std::size_t temp_bytes = 0;
  call(nullptr, temp_bytes, d_in.data(), d_out.data(), stream.get());
  device_buffer<std::byte> d_temp(temp_bytes, stream);
  for (int run = 0; run < runs; ++run) {
    d_out.fill_bytes(poison_byte);
    call(d_temp.data(), temp_bytes, d_in.data(), d_out.data(), stream.get());
    const auto got = to_host(d_out);
    ASSERT_EQ(0, std::memcmp(got.data(), expected.data(), expected.size()))
        << io::dtype_name(input.type) << ": run " << run << " of " << runs << " differs";
  }
}

}  // namespace lookback::test
