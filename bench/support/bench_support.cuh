#pragma once
// What every benchmark shares: fresh random device inputs (generated on the GPU from a per-process
// seed, cached per type and size), CUDA-event timing after a warm-up, and the memcpy baseline.
#include "typed/gpu_timing.hpp"
#include "typed/typed_ops.hpp"

#include <lookback/primitives/device_buffer.cuh>
#include <lookback/primitives/stream.cuh>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

namespace lookback::bench {

inline const std::int64_t sizes[] = {std::int64_t{1} << 20, std::int64_t{1} << 24, std::int64_t{1} << 28};
inline const io::dtype bench_types[] = {io::dtype::uint32, io::dtype::float32, io::dtype::uint64};

/// The benchmarks' stream.
cudaStream_t stream();

/// What random_input draws: integers in [0, 1000) or over every bit; floats in [0, 1) either way.
enum class spread { small_integers, all_bits };

/// A device array of n random elements of `type`, made once per process and reused by every
/// implementation timed on that type, size, spread and draw. Draws other than 0 are independent of
/// it: a sort's values must not be copies of its keys, or a shuffle among equal keys would go unseen.
const void* random_input(io::dtype type, std::int64_t n, spread how = spread::small_integers, int draw = 0);

/// A device scratch array of at least `bytes`, reused.
void* scratch(std::size_t bytes, int slot);

/// Compaction's byte flags in scratch `slot`: 1 where d_values[i] < threshold, else 0 (ordered on the
/// benchmarks' stream).
template <class T>  // uint32 and uint64
const std::uint8_t* flags_below(const T* d_values, std::int64_t n, T threshold, int slot);

/// Times `work` with CUDA events, one warm-up call first, the stream held while it is submitted
/// (typed::stream_hold); reports bytes and items per second, and `unheld` 1 where the work waited on
/// the GPU itself and so was timed with its submission.
template <class Work>
void time_gpu(benchmark::State& state, double bytes_moved, std::int64_t items, Work&& work) {
  work();
  LOOKBACK_CUDA_TRY(cudaStreamSynchronize(stream()));
  typed::event_timer timer;
  for (auto _ : state) state.SetIterationTime(timer.time_ms(stream(), work) / 1e3);
  state.counters["unheld"] = timer.holding() ? 0 : 1;
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes_moved) * state.iterations());
  state.SetItemsProcessed(items * state.iterations());
}

/// Whether `bytes` bytes at two device addresses are equal (each copied to the host once the
/// benchmarks' stream is done).
bool same_device_bytes(const void* d_a, const void* d_b, std::size_t bytes);

/// After a lookback row is timed, its output against a reference's (CUB's of the same call, made
/// untimed, unless another is named): on a difference (`problem` not empty) the row fails with it, so a
/// broken kernel cannot post a time.
void fail_on_difference(benchmark::State& state, const std::string& problem, const char* reference = "CUB's");

/// A deterministic row's output (a scan's n items, or with `scan` false a reduction's one) against the CPU's
/// association of the same input from `start` (cpu::deterministic_scan), bit for bit; "" when equal.
template <class T>
std::string differs_from_deterministic_cpu(const T* d_in, const T* d_out, std::int64_t n, T start, bool scan);

/// "scan/lookback/uint32/268435456"
std::string bench_name(const char* op, const char* impl, io::dtype type, std::int64_t n);

/// Registers with the settings every benchmark here uses: manual (event) time, repetitions reported
/// as aggregates so the table reads the median.
template <class Fn>
void register_gpu_benchmark(const std::string& name, Fn&& fn) {
  benchmark::RegisterBenchmark(name.c_str(), std::forward<Fn>(fn))
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond)
      ->MinTime(0.1)
      ->Repetitions(5)
      ->ReportAggregatesOnly(true);
}

/// Registers the device-to-device memcpy of n elements of `type`: the bandwidth ceiling.
void register_memcpy(const char* op, io::dtype type, std::int64_t n);

}  // namespace lookback::bench
