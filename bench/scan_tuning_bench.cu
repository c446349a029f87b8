// Scan policies side by side (tile shape, vector accesses, first-poll wait, descriptor kind; the
// pipelined scan's stages; the small arrays' two kernels; the deterministic reduction's kernels), for
// choosing policy::scan and policy::deterministic_scan. Not part of the main table; run with
// --benchmark_filter='scan_tune|reduce_tune'.
#include "support/bench_support.cuh"

#include <lookback/primitives/detail/scan_lookahead.cuh>
#include <lookback/primitives/deterministic_scan.cuh>
#include <lookback/primitives/scan.cuh>

namespace lookback::bench {
namespace {

using policy::scan_config;
using tile::descriptor;

/// Registers `label` under `op` at each size: `run(state, d_in, d_out, n)` times one scan of n random
/// items of T.
template <class T, class Run>
void register_rows(const char* op, const char* label, std::initializer_list<int> log_sizes, Run run) {
  for (const int log_n : log_sizes) {
    const std::int64_t n = std::int64_t{1} << log_n;
    const io::dtype type = io::dtype_of<T>();
    register_gpu_benchmark(bench_name(op, label, type, n), [=](benchmark::State& state) {
      const T* d_in = static_cast<const T*>(random_input(type, n));
      T* d_out = static_cast<T*>(scratch(static_cast<std::size_t>(n) * sizeof(T), 0));
      run(state, d_in, d_out, n);
    });
  }
}

/// Times `call(d_temp, bytes)`, which sizes its temporary storage when d_temp is null.
template <class T, class Call>
void time_two_phase(benchmark::State& state, std::int64_t n, Call call) {
  std::size_t temp_bytes = 0;
  call(nullptr, temp_bytes);
  void* d_temp = scratch(temp_bytes, 2);
  time_gpu(state, 2.0 * static_cast<double>(n) * sizeof(T), n, [&] { call(d_temp, temp_bytes); });
}

/// The look-back scan with Policy.
template <class T, class Policy>
void register_policy(const char* label, std::initializer_list<int> log_sizes = {28}) {
  register_rows<T>("scan_tune", label, log_sizes, [](benchmark::State& state, const T* d_in, T* d_out, std::int64_t n) {
    time_two_phase<T>(state, n, [&](void* d_temp, std::size_t& bytes) {
      lookback::detail::scan_with_policy<Policy, true>(d_temp, bytes, d_in, d_out, T(0), sum{}, n, stream());
    });
  });
}

/// The pipelined scan (device/scan_lookahead_kernel.cuh) with Policy.
template <class T, class Policy>
void register_lookahead_policy(const char* label, std::initializer_list<int> log_sizes) {
  register_rows<T>("scan_tune", label, log_sizes, [](benchmark::State& state, const T* d_in, T* d_out, std::int64_t n) {
    using lookback::detail::scan_lookahead_applies;
    if (!scan_lookahead_applies<Policy, true, T, T, sum>(d_in, d_out)) {
      state.SkipWithError("the pipelined scan does not apply on this device");
      return;
    }
    void* d_temp = scratch(lookback::detail::scan_lookahead_layout<Policy, T>(n).total(), 2);
    time_gpu(state, 2.0 * static_cast<double>(n) * sizeof(T), n, [&] {
      lookback::detail::scan_lookahead<Policy, true>(d_temp, d_in, d_out, T(0), sum{}, n, 0, stream());
    });
  });
}

/// The small arrays' two kernels (device/reduce_then_scan_kernels.cuh) with Policy.
template <class T, class Policy>
void register_reduce_then_scan_policy(const char* label, std::initializer_list<int> log_sizes) {
  register_rows<T>("scan_tune", label, log_sizes, [](benchmark::State& state, const T* d_in, T* d_out, std::int64_t n) {
    time_two_phase<T>(state, n, [&](void* d_temp, std::size_t& bytes) {
      lookback::detail::scan_reduce_then_scan<Policy, true>(d_temp, bytes, d_in, d_out, T(0), sum{}, n, stream());
    });
  });
}

/// The deterministic scan with Policy, or without stores (`Store` false) the reduction: the look-back
/// kernel without its stores, or the pipelined reduction (device/deterministic_reduce_lookahead_kernel.cuh),
/// whose bytes counted are its reads alone.
template <class T, class Policy, bool Store = true>
void register_deterministic_policy(const char* label, std::initializer_list<int> log_sizes = {28}) {
  register_rows<T>(Store ? "scan_tune_deterministic" : "reduce_tune_deterministic", label, log_sizes,
                   [](benchmark::State& state, const T* d_in, T* d_out, std::int64_t n) {
                     std::size_t temp_bytes = 0;
                     const auto call = [&](void* d_temp) {
                       lookback::detail::deterministic_scan_with_policy<Policy, true>(
                           d_temp, temp_bytes, d_in, Store ? d_out : nullptr, T(0), true, sum{}, n,
                           Store ? nullptr : d_out, Store, stream());
                     };
                     call(nullptr);
                     void* d_temp = scratch(temp_bytes, 2);
                     time_gpu(state, (Store ? 2.0 : 1.0) * static_cast<double>(n) * sizeof(T), n,
                              [&] { call(d_temp); });
                   });
}

const bool registered = [] {
  using u32 = std::uint32_t;
  using u64 = std::uint64_t;
  constexpr auto p64 = descriptor::packed64;
  constexpr auto p128 = descriptor::packed128;
  register_policy<u32, scan_config<512, 16, false, 0, p64>>("512x16");
  register_policy<u32, scan_config<512, 16, true, 0, p64>>("512x16_vec");
  register_policy<u32, scan_config<512, 16, true, 1100, p64>>("512x16_vec_wait1100");
  register_policy<u32, scan_config<512, 16, true, 1500, p64>>("512x16_vec_wait1500");
  register_policy<u32, scan_config<512, 16, true, 2000, p64>>("512x16_vec_wait2000");
  register_policy<u32, scan_config<256, 16, true, 1100, p64>>("256x16_vec_wait1100");
  register_policy<u32, scan_config<512, 16, true, 1100, p64, 4>>("512x16_vec_wait1100_4blocks");
  register_policy<u32, scan_config<512, 16, true, 700, p64, 4>>("512x16_vec_wait700_4blocks");
  register_policy<u32, scan_config<256, 16, true, 1100, p64, 8>>("256x16_vec_wait1100_8blocks");
  register_policy<u32, scan_config<256, 16, true, 1100, p64, 6>>("256x16_vec_wait1100_6blocks");
  register_policy<u32, scan_config<384, 16, true, 1100, p64, 5>>("384x16_vec_wait1100_5blocks");
  register_policy<u32, scan_config<256, 32, true, 1100, p64, 4>>("256x32_vec_wait1100_4blocks");
  register_policy<u64, scan_config<128, 16, false, 1100, p128, 8>>("128x16_wait1100_8blocks");
  // Each block prefetching into L2 the input of the tile `distance` ids ahead (thread/l2_prefetch.cuh).
  register_policy<u32, policy::scan<u32>::small>("small", {16, 18, 20, 22, 24, 28});
  register_policy<u32, policy::scan<u32>::large>("large", {20, 22, 24, 28});
  register_policy<u32, scan_config<512, 16, true, 1100, p64, 4>>("512x16_4blocks_prefetch0", {20, 22, 24});
  register_policy<u32, scan_config<512, 16, true, 1100, p64, 4, 32>>("512x16_4blocks_prefetch32", {24, 28});
  register_policy<u32, scan_config<512, 16, true, 1100, p64, 4, 66>>("512x16_4blocks_prefetch66", {24, 28});
  register_policy<u32, scan_config<512, 16, true, 1100, p64, 4, 132>>("512x16_4blocks_prefetch132", {24, 28});
  register_policy<u32, scan_config<512, 16, true, 1100, p64, 4, 200>>("512x16_4blocks_prefetch200", {24, 28});
  register_policy<u32, scan_config<256, 16, true, 1100, p64, 8, 132>>("256x16_8blocks_prefetch132", {20, 24, 28});
  register_policy<u32, scan_config<256, 16, true, 1100, p64, 8, 264>>("256x16_8blocks_prefetch264", {20, 24, 28});
  register_policy<u32, scan_config<256, 16, true, 1100, p64, 8, 400>>("256x16_8blocks_prefetch400", {24, 28});
  register_policy<u64, policy::scan<u64>::large>("large", {20, 24, 28});
  register_policy<u64, scan_config<128, 16, false, 1100, p128>>("128x16_prefetch0", {20, 24});
  register_policy<u64, scan_config<128, 16, false, 1100, p128, 0, 132>>("128x16_prefetch132", {24, 28});
  register_policy<u64, scan_config<128, 16, false, 1100, p128, 0, 264>>("128x16_prefetch264", {24, 28});
  register_policy<u64, scan_config<128, 16, false, 1100, p128, 8, 200>>("128x16_8blocks_prefetch200", {20, 24, 28});
  // 8-byte values up to small_max_items: tile shapes with 16-byte vector accesses (two items a vector).
  register_policy<u64, policy::scan<u64>::small>("small", {16, 18, 20, 22});
  register_policy<u64, scan_config<128, 16, true, 1100, p128>>("128x16_vec", {20, 22});
  register_policy<u64, scan_config<256, 8, true, 1100, p128>>("256x8_vec", {20, 22});
  register_policy<u64, scan_config<256, 16, true, 1100, p128>>("256x16_vec", {20, 22});
  register_policy<u64, scan_config<256, 16, true, 1100, p128, 4, 100>>("256x16_vec_4blocks_prefetch100", {20, 22});
  register_policy<u64, scan_config<512, 8, true, 1100, p128, 4>>("512x8_vec_4blocks", {20, 22});
  register_policy<u64, scan_config<512, 8, true, 1100, p128, 4, 100>>("512x8_vec_4blocks_prefetch100", {20, 22});
  register_policy<u64, scan_config<128, 16, true, 1100, p128, 8, 100>>("128x16_vec_8blocks_prefetch100", {20, 22});
  // The pipelined scan: warps per role, items per thread, stages, look-ahead chunks, retry delay.
  using policy::scan_lookahead_config;
  register_lookahead_policy<u32, scan_lookahead_config<4, 63, 6, 4>>("la_4w_63_6s", {16, 18, 20, 22, 24, 28});
  register_lookahead_policy<u32, scan_lookahead_config<4, 79, 5, 4>>("la_4w_79_5s", {20, 24, 28});
  register_lookahead_policy<u32, scan_lookahead_config<4, 63, 4, 4>>("la_4w_63_4s", {24, 28});
  register_lookahead_policy<u32, scan_lookahead_config<4, 31, 12, 4>>("la_4w_31_12s", {20, 24, 28});
  register_lookahead_policy<u32, scan_lookahead_config<8, 31, 6, 4>>("la_8w_31_6s", {24, 28});
  register_lookahead_policy<u32, scan_lookahead_config<4, 63, 6, 4, 200>>("la_4w_63_6s_retry200", {24, 28});
  register_lookahead_policy<u32, scan_lookahead_config<4, 63, 6, 2>>("la_4w_63_6s_2chunks", {24, 28});
  register_lookahead_policy<u32, scan_lookahead_config<4, 55, 7, 2>>("la_4w_55_7s_2chunks", {20, 24, 28});
  register_lookahead_policy<u32, scan_lookahead_config<4, 47, 8, 2>>("la_4w_47_8s_2chunks", {20, 24, 28});
  register_lookahead_policy<u32, scan_lookahead_config<4, 39, 10, 2>>("la_4w_39_10s_2chunks", {24, 28});
  register_lookahead_policy<u32, scan_lookahead_config<8, 31, 6, 2>>("la_8w_31_6s_2chunks", {20, 24, 28});
  register_lookahead_policy<u64, scan_lookahead_config<4, 31, 6, 4>>("la_4w_31_6s", {16, 18, 20, 22, 24, 28});
  // The look-ahead reading 8 x 32 descriptors a poll: a block's consecutive tiles lie about an SM count
  // of tiles apart, which 4 x 32 covers in two polls.
  register_lookahead_policy<u32, scan_lookahead_config<4, 63, 6, 8>>("la_4w_63_6s_8chunks", {20, 24, 28});
  register_lookahead_policy<u64, scan_lookahead_config<4, 31, 6, 8>>("la_4w_31_6s_8chunks", {20, 24, 28});
  register_lookahead_policy<u64, scan_lookahead_config<4, 39, 5, 4>>("la_4w_39_5s", {20, 24, 28});
  register_lookahead_policy<u64, scan_lookahead_config<4, 23, 8, 2>>("la_4w_23_8s_2chunks", {20, 24, 28});
  register_lookahead_policy<u64, scan_lookahead_config<4, 27, 7, 2>>("la_4w_27_7s_2chunks", {20, 24, 28});
  register_lookahead_policy<u64, scan_lookahead_config<4, 15, 12, 4>>("la_4w_15_12s", {24, 28});
  register_lookahead_policy<u64, scan_lookahead_config<2, 63, 6, 4>>("la_2w_63_6s", {24, 28});
  // 8-byte values at 2^20-2^22, where 4x31 tiles take two rounds of the grid: one round of larger tiles.
  register_lookahead_policy<u64, scan_lookahead_config<4, 63, 3, 4>>("la_4w_63_3s", {20, 21, 22});
  register_lookahead_policy<u64, scan_lookahead_config<8, 31, 3, 4>>("la_8w_31_3s", {20, 21, 22});
  register_lookahead_policy<u64, scan_lookahead_config<4, 47, 4, 4>>("la_4w_47_4s", {20, 21, 22});
  register_lookahead_policy<u64, scan_lookahead_config<4, 31, 6, 4>>("la_4w_31_6s", {21});
  // Small arrays in two kernels: threads x items a thread.
  using policy::reduce_then_scan_config;
  register_reduce_then_scan_policy<u32, reduce_then_scan_config<256, 16>>("rts_256x16", {16, 18, 20, 21, 22});
  register_reduce_then_scan_policy<u32, reduce_then_scan_config<512, 16>>("rts_512x16", {16, 18, 20, 21, 22});
  register_reduce_then_scan_policy<u32, reduce_then_scan_config<1024, 8>>("rts_1024x8", {16, 18, 20, 21, 22});
  register_reduce_then_scan_policy<u32, reduce_then_scan_config<256, 8>>("rts_256x8", {16, 18, 20});
  register_reduce_then_scan_policy<u64, reduce_then_scan_config<256, 8>>("rts_256x8", {16, 18, 19, 20, 21});
  register_reduce_then_scan_policy<u64, reduce_then_scan_config<128, 16>>("rts_128x16", {16, 18, 19, 20, 21});
  // 8 MiB (uint64 2^20, uint32 2^21), where the look-back wins: fewer items a thread, and registers capped
  // so that the second kernel's blocks fit beside the first's.
  register_reduce_then_scan_policy<u64, reduce_then_scan_config<256, 4>>("rts_256x4", {19, 20});
  register_reduce_then_scan_policy<u64, reduce_then_scan_config<512, 4>>("rts_512x4", {19, 20});
  register_reduce_then_scan_policy<u64, reduce_then_scan_config<1024, 4>>("rts_1024x4", {19, 20});
  register_reduce_then_scan_policy<u64, reduce_then_scan_config<256, 8, 4>>("rts_256x8_4blocks", {19, 20});
  register_reduce_then_scan_policy<u64, reduce_then_scan_config<256, 8, 6>>("rts_256x8_6blocks", {19, 20});
  register_reduce_then_scan_policy<u64, reduce_then_scan_config<128, 16, 8>>("rts_128x16_8blocks", {19, 20});
  register_reduce_then_scan_policy<u64, reduce_then_scan_config<512, 8, 2>>("rts_512x8_2blocks", {19, 20});
  register_reduce_then_scan_policy<u32, reduce_then_scan_config<512, 16, 2>>("rts_512x16_2blocks", {20, 21});
  register_reduce_then_scan_policy<u32, reduce_then_scan_config<256, 16, 4>>("rts_256x16_4blocks", {20, 21});
  register_reduce_then_scan_policy<u32, reduce_then_scan_config<256, 8, 8>>("rts_256x8_8blocks", {20, 21});
  using policy::deterministic_scan_config;
  register_deterministic_policy<float, deterministic_scan_config<4, 1100, 1>>("4granules_wait1100_free_registers");
  register_deterministic_policy<float, deterministic_scan_config<4, 1100, 3>>("4granules_wait1100_3blocks");
  register_deterministic_policy<float, deterministic_scan_config<4, 1100, 4>>("4granules_wait1100_4blocks");
  register_deterministic_policy<float, deterministic_scan_config<4, 500, 3>>("4granules_wait500_3blocks");
  register_deterministic_policy<float, deterministic_scan_config<4, 2000, 3>>("4granules_wait2000_3blocks");
  register_deterministic_policy<float, deterministic_scan_config<2, 1100, 6>>("2granules_wait1100_6blocks");
  register_deterministic_policy<double, deterministic_scan_config<1, 1100>>("1granule_wait1100");
  register_deterministic_policy<double, deterministic_scan_config<2, 1100>>("2granules_wait1100");
  register_deterministic_policy<double, deterministic_scan_config<2, 1100, 5>>("2granules_wait1100_5blocks");
  register_deterministic_policy<float, policy::deterministic_scan<float>>("default");
  register_deterministic_policy<float, deterministic_scan_config<4, 1100, 4, 66>>("4granules_4blocks_prefetch66");
  register_deterministic_policy<float, deterministic_scan_config<4, 1100, 4, 132>>("4granules_4blocks_prefetch132");
  register_deterministic_policy<float, deterministic_scan_config<4, 1100, 4, 200>>("4granules_4blocks_prefetch200");
  register_deterministic_policy<float, deterministic_scan_config<4, 1100, 3, 66>>("4granules_3blocks_prefetch66");
  register_deterministic_policy<double, policy::deterministic_scan<double>>("default");
  // On the look-ahead pipeline: granules a tile, role warps, stages.
  using policy::deterministic_scan_lookahead_config;
  register_deterministic_policy<float, deterministic_scan_lookahead_config<4, 4, 6>>("pipelined_4g_4w_6s", {24, 28});
  register_deterministic_policy<float, deterministic_scan_lookahead_config<4, 8, 6>>("pipelined_4g_8w_6s");
  register_deterministic_policy<float, deterministic_scan_lookahead_config<2, 4, 12>>("pipelined_2g_4w_12s", {24, 28});
  register_deterministic_policy<float, deterministic_scan_lookahead_config<2, 8, 12>>("pipelined_2g_8w_12s", {24, 28});
  register_deterministic_policy<float, deterministic_scan_lookahead_config<2, 2, 12>>("pipelined_2g_2w_12s", {24, 28});
  register_deterministic_policy<float, deterministic_scan_lookahead_config<2, 4, 10>>("pipelined_2g_4w_10s", {24, 28});
  register_deterministic_policy<float, deterministic_scan_lookahead_config<1, 4, 24>>("pipelined_1g_4w_24s", {24, 28});
  register_deterministic_policy<double, deterministic_scan_lookahead_config<2, 4, 6>>("pipelined_2g_4w_6s", {24, 28});
  register_deterministic_policy<double, deterministic_scan_lookahead_config<1, 4, 12>>("pipelined_1g_4w_12s", {24, 28});
  register_deterministic_policy<double, deterministic_scan_lookahead_config<1, 2, 12>>("pipelined_1g_2w_12s", {24, 28});
  register_deterministic_policy<double, deterministic_scan_config<2, 1100, 1, 132>>("2granules_prefetch132");
  register_deterministic_policy<double, deterministic_scan_config<2, 1100, 1, 264>>("2granules_prefetch264");
  // The deterministic reduction: the look-back kernel, then the pipeline's granules a tile, reduce
  // warps, stages.
  using policy::deterministic_reduce_lookahead_config;
  register_deterministic_policy<float, policy::deterministic_scan<float>, false>("lookback", {20, 24, 28});
  register_deterministic_policy<float, deterministic_reduce_lookahead_config<2, 4, 12>, false>("pipelined_2g_4w_12s",
                                                                                              {20, 24, 28});
  register_deterministic_policy<float, deterministic_reduce_lookahead_config<2, 8, 12>, false>("pipelined_2g_8w_12s",
                                                                                              {20, 24, 28});
  register_deterministic_policy<float, deterministic_reduce_lookahead_config<2, 2, 12>, false>("pipelined_2g_2w_12s",
                                                                                              {20, 24, 28});
  register_deterministic_policy<float, deterministic_reduce_lookahead_config<4, 8, 6>, false>("pipelined_4g_8w_6s",
                                                                                             {20, 24, 28});
  register_deterministic_policy<float, deterministic_reduce_lookahead_config<4, 16, 6>, false>("pipelined_4g_16w_6s",
                                                                                              {20, 24, 28});
  register_deterministic_policy<float, deterministic_reduce_lookahead_config<1, 4, 24>, false>("pipelined_1g_4w_24s",
                                                                                              {20, 24, 28});
  register_deterministic_policy<double, policy::deterministic_scan<double>, false>("lookback", {20, 24, 27});
  register_deterministic_policy<double, deterministic_reduce_lookahead_config<2, 4, 6>, false>("pipelined_2g_4w_6s",
                                                                                              {20, 24, 27});
  register_deterministic_policy<double, deterministic_reduce_lookahead_config<2, 8, 6>, false>("pipelined_2g_8w_6s",
                                                                                              {20, 24, 27});
  register_deterministic_policy<double, deterministic_reduce_lookahead_config<1, 4, 12>, false>("pipelined_1g_4w_12s",
                                                                                               {20, 24, 27});
  return true;
}();

}  // namespace
}  // namespace lookback::bench
