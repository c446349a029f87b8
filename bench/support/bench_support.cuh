#pragma once
// What every benchmark shares: fresh random device inputs (generated on the GPU from a per-process
// seed, cached per type and size), CUDA-event timing after a warm-up, and the memcpy baseline.
#include "typed/gpu_timing.hpp"
#include "typed/typed_ops.hpp"

#include <lookback/primitives/device_buffer.cuh>
#include <lookback/primitives/stream.cuh>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
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

/// A benchmark's output check, made once a process (see fail_on_difference).
struct output_check {
  bool done = false;
  std::string problem;  // empty: the output was right
};
namespace detail {
/// The check of the benchmark now running (register_gpu_benchmark sets it around each run).
inline thread_local output_check* running_check = nullptr;
/// Sets running_check for one run and clears it however the run ends, so a row that throws leaves no
/// later fail_on_difference outside a registered row reading its check.
class running_check_scope {
 public:
  explicit running_check_scope(output_check* check) { running_check = check; }
  ~running_check_scope() { running_check = nullptr; }
  running_check_scope(const running_check_scope&) = delete;
  running_check_scope& operator=(const running_check_scope&) = delete;
};
}  // namespace detail

/// After a lookback row is timed, its output against a reference's (CUB's of the same call, made
/// untimed, unless another is named): `differs()` computes the reference and returns the difference
/// ("" when none). On a difference the row fails with it, so a broken kernel cannot post a time.
/// Google Benchmark runs a benchmark about eight times (each trial of its iteration count, then each
/// repetition); `differs()` runs on the first alone, as a 2^28 row's reference and host comparison took
/// longer than its timing, and every later run fails with the first's difference.
template <class Differs>
void fail_on_difference(benchmark::State& state, Differs&& differs, const char* reference = "CUB's") {
  output_check* check = detail::running_check;
  if (check == nullptr) throw std::logic_error("fail_on_difference outside a register_gpu_benchmark row");
  if (!check->done) {
    const std::string problem = differs();
    if (!problem.empty()) check->problem = "lookback's output differs from " + std::string(reference) + ": " + problem;
    check->done = true;
  }
  if (!check->problem.empty()) state.SkipWithError(check->problem.c_str());
}

/// A deterministic row's output (a scan's n items, or with `scan` false a reduction's one) against the CPU's
/// association of the same input from `start` (cpu::deterministic_scan), bit for bit; "" when equal.
template <class T>
std::string differs_from_deterministic_cpu(const T* d_in, const T* d_out, std::int64_t n, T start, bool scan);

/// "scan/lookback/uint32/268435456"
std::string bench_name(const char* op, const char* impl, io::dtype type, std::int64_t n);

/// Registers with the settings every benchmark here uses: manual (event) time, repetitions reported
/// as aggregates so the table reads the median. Each repetition runs until 30 ms of GPU time. At 0.1 s,
/// issue 18's and 19's rows took about 2 s a benchmark and more than two 10-minute calls on an H100
/// (50426c2): a 2^20 row makes some 15,000 calls a repetition, each with the host's hold, launch and
/// event wait. At 30 ms every row of both issues took 274 s (bench/results/h100-owed-run-55092a8.md), its
/// times within 4% of 0.1 s's but one, and the slowest row (2^27 uint64 pairs, 16 ms a sort) still
/// makes two calls a repetition.
template <class Fn>
void register_gpu_benchmark(const std::string& name, Fn&& fn) {
  auto check = std::make_shared<output_check>();
  benchmark::RegisterBenchmark(name.c_str(),
                               [check, fn = std::forward<Fn>(fn)](benchmark::State& state) mutable {
                                 const detail::running_check_scope scope(check.get());
                                 fn(state);
                               })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond)
      ->MinTime(0.03)
      ->Repetitions(5)
      ->ReportAggregatesOnly(true);
}

/// Registers the device-to-device memcpy of n elements of `type`: the bandwidth ceiling.
void register_memcpy(const char* op, io::dtype type, std::int64_t n);

}  // namespace lookback::bench
