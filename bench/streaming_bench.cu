// Streaming from host memory (lookback::pipelines) beside the copy bounds measured in the same run:
// pinned host-to-device, device-to-host, both at once, and pageable host-to-device of the same bytes.
// Reduce and histogram move the input in; scan and compaction (99% kept) move it in and the output out.
// Wall-clock time of the whole call (its allocation of staging and device buffers included), median
// of 5 repetitions.
#include "support/bench_support.cuh"

#include <lookback/pipelines/histogram.cuh>
#include <lookback/pipelines/pinned_buffer.hpp>
#include <lookback/pipelines/reduce.cuh>
#include <lookback/pipelines/scan.cuh>
#include <lookback/pipelines/select.cuh>

#include <chrono>
#include <vector>

namespace lookback::bench {
namespace {

constexpr std::int64_t stream_n = std::int64_t{1} << 28;  // 1 GiB of uint32

struct below_max {
  __host__ __device__ bool operator()(std::uint32_t v) const { return v < 990u; }  // keeps 99% of [0, 1000)
};

/// The host arrays every streaming benchmark shares: pinned input and output, and a pageable input.
struct host_arrays {
  pipelines::pinned_buffer in{static_cast<std::size_t>(stream_n) * 4};
  pipelines::pinned_buffer out{static_cast<std::size_t>(stream_n) * 4};
  std::vector<std::uint32_t> pageable = std::vector<std::uint32_t>(static_cast<std::size_t>(stream_n));
  host_arrays() {
    auto* x = reinterpret_cast<std::uint32_t*>(in.data());
    for (std::int64_t i = 0; i < stream_n; ++i) x[i] = pageable[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>((i * 2654435761u) % 1000u);
  }
};
host_arrays& arrays() {
  static host_arrays a;
  return a;
}

template <class Work>
void time_wall(benchmark::State& state, double bytes, Work&& work) {
  work();
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    work();
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
  state.SetItemsProcessed(stream_n * state.iterations());
}

void register_stream(const char* name, double bytes, std::function<void()> work) {
  benchmark::RegisterBenchmark(name, [=](benchmark::State& state) { time_wall(state, bytes, work); })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond)
      ->Iterations(3)
      ->Repetitions(5)
      ->ReportAggregatesOnly(true);
}

const bool registered = [] {
  const std::size_t bytes = static_cast<std::size_t>(stream_n) * 4;
  const double in_bytes = static_cast<double>(bytes), both = 2.0 * in_bytes;
  // The bounds: the copies alone, through one 1 GiB device buffer (two for the copy both ways).
  register_stream("stream_bound/h2d_pinned/uint32/268435456", in_bytes, [=] {
    static device_buffer<std::byte> d(bytes, stream());
    LOOKBACK_CUDA_TRY(cudaMemcpyAsync(d.data(), arrays().in.data(), bytes, cudaMemcpyHostToDevice, stream()));
    LOOKBACK_CUDA_TRY(cudaStreamSynchronize(stream()));
  });
  register_stream("stream_bound/d2h_pinned/uint32/268435456", in_bytes, [=] {
    static device_buffer<std::byte> d(bytes, stream());
    LOOKBACK_CUDA_TRY(cudaMemcpyAsync(arrays().out.data(), d.data(), bytes, cudaMemcpyDeviceToHost, stream()));
    LOOKBACK_CUDA_TRY(cudaStreamSynchronize(stream()));
  });
  register_stream("stream_bound/both_pinned/uint32/268435456", both, [=] {
    static device_buffer<std::byte> d_in(bytes, stream()), d_out(bytes, stream());
    static cuda_stream other;
    LOOKBACK_CUDA_TRY(cudaStreamSynchronize(stream()));
    LOOKBACK_CUDA_TRY(cudaMemcpyAsync(d_in.data(), arrays().in.data(), bytes, cudaMemcpyHostToDevice, stream()));
    LOOKBACK_CUDA_TRY(cudaMemcpyAsync(arrays().out.data(), d_out.data(), bytes, cudaMemcpyDeviceToHost, other));
    LOOKBACK_CUDA_TRY(cudaStreamSynchronize(stream()));
    LOOKBACK_CUDA_TRY(cudaStreamSynchronize(other));
  });
  register_stream("stream_bound/h2d_pageable/uint32/268435456", in_bytes, [=] {
    static device_buffer<std::byte> d(bytes, stream());
    LOOKBACK_CUDA_TRY(cudaMemcpyAsync(d.data(), arrays().pageable.data(), bytes, cudaMemcpyHostToDevice, stream()));
    LOOKBACK_CUDA_TRY(cudaStreamSynchronize(stream()));
  });

  register_stream("stream_reduce/pinned/uint32/268435456", in_bytes, [] {
    pipelines::host_source in(arrays().in.data(), stream_n, 4);
    benchmark::DoNotOptimize(pipelines::reduce(in, sum{}, std::uint32_t{0}));
  });
  register_stream("stream_reduce/pageable/uint32/268435456", in_bytes, [] {
    pipelines::host_source in(arrays().pageable.data(), stream_n, 4);
    benchmark::DoNotOptimize(pipelines::reduce(in, sum{}, std::uint32_t{0}));
  });
  register_stream("stream_histogram256/pinned/uint32/268435456", in_bytes, [] {
    pipelines::host_source in(arrays().in.data(), stream_n, 4);
    std::vector<unsigned> counts(256);
    pipelines::histogram_even<std::uint32_t>(in, counts.data(), 256, 0, 1000);
  });
  register_stream("stream_scan/pinned/uint32/268435456", both, [] {
    pipelines::host_source in(arrays().in.data(), stream_n, 4);
    pipelines::host_sink out(arrays().out.data(), 4);
    pipelines::exclusive_scan(in, out, 0u, sum{});
  });
  register_stream("stream_scan/pageable/uint32/268435456", both, [] {
    pipelines::host_source in(arrays().pageable.data(), stream_n, 4);
    pipelines::host_sink out(arrays().out.data(), 4);
    pipelines::exclusive_scan(in, out, 0u, sum{});
  });
  register_stream("stream_select_99pct/pinned/uint32/268435456", both, [] {
    pipelines::host_source in(arrays().in.data(), stream_n, 4);
    pipelines::host_sink out(arrays().out.data(), 4);
    benchmark::DoNotOptimize(pipelines::select_if<std::uint32_t>(in, out, below_max{}));
  });
  return true;
}();

}  // namespace
}  // namespace lookback::bench
