// Compaction policies side by side (tile shape, wait before the first look-back poll, blocks an SM;
// the pipelined kernel's warps, items and stages) on uint32 values in [0, 1000), 2^28 of them (some
// 2^16 to 2^24 too), 1%, 50% and 99% kept by select_if (and, on the pipelined kernel's tiles, by
// select_flagged and partition), for choosing policy::select. Not part of the main table; run with
// --benchmark_filter=select_tune.
#include "support/bench_support.cuh"
#include "typed/select_predicate.hpp"

#include <lookback/algorithms/select.cuh>

namespace lookback::bench {
namespace {

using policy::select_config;

/// select_if of 2^log_n uint32 values keeping `percent`, run by run(d_temp, temp_bytes, d_in, selector,
/// d_out, d_count, n) (temp_bytes: its query's answer).
template <class Query, class Run>
void register_run(const char* label, int percent, std::int64_t n, Query query, Run run) {
  const std::string name = std::string(label) + "_" + std::to_string(percent) + "pct";
  register_gpu_benchmark(bench_name("select_tune", name.c_str(), io::dtype::uint32, n), [=](benchmark::State& state) {
    const auto* d_in = static_cast<const std::uint32_t*>(random_input(io::dtype::uint32, n));
    auto* d_out = static_cast<std::uint32_t*>(scratch(static_cast<std::size_t>(n) * sizeof(std::uint32_t), 0));
    auto* d_count = static_cast<std::int64_t*>(scratch(sizeof(std::int64_t), 1));
    const select::predicate_selector<typed::compare_predicate<std::uint32_t>> selector{
        {typed::compare_kind::lt, static_cast<std::uint32_t>(percent * 10)}};
    std::size_t temp_bytes = query(d_in, selector, d_out, d_count, n);
    void* d_temp = scratch(temp_bytes, 2);
    const double bytes = static_cast<double>(n) * 4.0 * (1.0 + percent / 100.0);
    time_gpu(state, bytes, n, [&] { run(d_temp, temp_bytes, d_in, selector, d_out, d_count, n); });
  });
}

template <class Policy>
void register_policy(const char* label, int percent, std::int64_t n = std::int64_t{1} << 28) {
  register_run(
      label, percent, n,
      [](auto d_in, auto selector, auto d_out, auto d_count, std::int64_t n) {
        std::size_t bytes = 0;
        select::detail::run_with_policy<Policy, false>(nullptr, bytes, d_in, selector, d_out, d_count, n, stream());
        return bytes;
      },
      [](void* d_temp, std::size_t& bytes, auto d_in, auto selector, auto d_out, auto d_count, std::int64_t n) {
        select::detail::run_with_policy<Policy, false>(d_temp, bytes, d_in, selector, d_out, d_count, n, stream());
      });
}

template <class Policy>
void register_both(const char* label, std::initializer_list<int> log_sizes = {28}) {
  for (const int log_n : log_sizes)
    for (const int percent : {1, 50, 99}) register_policy<Policy>(label, percent, std::int64_t{1} << log_n);
}

/// The pipelined kernel (select/select_lookahead_kernel.cuh) with Policy's tiles, selecting by value
/// (select_if), by byte flags (select_flagged: "flags_" rows) or partitioning ("partition_" rows).
enum class pipelined_op { select_if, select_flagged, partition };

template <class Policy>
void register_pipelined(const char* label, std::initializer_list<int> log_sizes = {20, 22, 24, 28},
                        pipelined_op op = pipelined_op::select_if) {
  const std::string prefix = op == pipelined_op::select_flagged ? "flags_" : op == pipelined_op::partition ? "partition_" : "";
  for (const int log_n : log_sizes)
    for (const int percent : {1, 50, 99}) {
      const std::int64_t n = std::int64_t{1} << log_n;
      const std::string name = prefix + label + "_" + std::to_string(percent) + "pct";
      register_gpu_benchmark(bench_name("select_tune", name.c_str(), io::dtype::uint32, n), [=](benchmark::State& state) {
        const auto* d_in = static_cast<const std::uint32_t*>(random_input(io::dtype::uint32, n));
        auto* d_out = static_cast<std::uint32_t*>(scratch(static_cast<std::size_t>(n) * sizeof(std::uint32_t), 0));
        auto* d_count = static_cast<std::int64_t*>(scratch(sizeof(std::int64_t), 1));
        void* d_temp = scratch(select::detail::select_lookahead_layout<Policy>(n).total(), 2);
        const auto threshold = static_cast<std::uint32_t>(percent * 10);
        const double kept_bytes = static_cast<double>(n) * 4.0 * (op == pipelined_op::partition ? 1.0 : percent / 100.0);
        const double bytes = static_cast<double>(n) * (op == pipelined_op::select_flagged ? 5.0 : 4.0) + kept_bytes;
        if (op == pipelined_op::select_flagged) {
          const select::flags_selector<std::uint8_t> selector{flags_below(d_in, n, threshold, 3), true};
          if (!select::detail::select_lookahead_applies<Policy, false>(d_in, selector))
            return state.SkipWithError("the stages do not fit a block's shared memory");
          time_gpu(state, bytes, n, [&] {
            select::detail::select_lookahead<Policy, false>(d_temp, d_in, selector, d_out, d_count, n, 0, stream());
          });
          return;
        }
        const select::predicate_selector<typed::compare_predicate<std::uint32_t>> selector{
            {typed::compare_kind::lt, threshold}};
        const bool fits = op == pipelined_op::partition
                              ? select::detail::select_lookahead_applies<Policy, true>(d_in, selector)
                              : select::detail::select_lookahead_applies<Policy, false>(d_in, selector);
        if (!fits)
          return state.SkipWithError("the stages do not fit a block's shared memory");
        time_gpu(state, bytes, n, [&] {
          if (op == pipelined_op::partition)
            select::detail::select_lookahead<Policy, true>(d_temp, d_in, selector, d_out, d_count, n, 0, stream());
          else
            select::detail::select_lookahead<Policy, false>(d_temp, d_in, selector, d_out, d_count, n, 0, stream());
        });
      });
    }
}

const bool registered = [] {
  register_both<select_config<256, 16, true, 1100>>("256x16");
  register_both<select_config<512, 16, true, 1100>>("512x16");
  register_both<select_config<512, 16, true, 0>>("512x16_nowait");
  register_both<select_config<256, 32, true, 1100>>("256x32");
  register_both<select_config<128, 16, true, 1100>>("128x16");
  register_both<select_config<512, 8, true, 700>>("512x8_wait700");
  // Occupancy: 48 registers allow five blocks of 256 (ncu at 1% kept: 59% occupancy, DRAM 46%, warps
  // stalled at barriers 7 of every 16 cycles).
  register_both<select_config<256, 16, true, 1100, 6>>("256x16_6blocks", {20, 24, 28});
  // Small sizes: at 2^20 the 256 tiles of 4096 are resident at once, so a pass is the look-back's
  // chain and one tile's latency.
  register_both<select_config<128, 16, true, 1100, 12>>("128x16_12blocks", {20, 24});
  register_both<select_config<256, 24, true, 1100, 4>>("256x24_4blocks", {20, 24});
  register_both<select_config<384, 16, true, 1100, 4>>("384x16_4blocks", {20, 24});
  register_both<select_config<256, 16, true, 500, 6>>("256x16_6blocks_wait500", {20, 24});
  register_both<select_config<256, 16, true, 0, 6>>("256x16_6blocks_nowait", {20, 24});
  register_both<select_config<256, 16, true, 1100, 8>>("256x16_8blocks");
  register_both<select_config<512, 16, true, 1100, 4>>("512x16_4blocks", {24, 28});
  register_both<select_config<256, 32, true, 1100, 4>>("256x32_4blocks", {24, 28});
  register_both<select_config<256, 8, true, 1100, 8>>("256x8_8blocks");
  register_both<select_config<512, 8, true, 1100, 4>>("512x8_4blocks");
  // Each block prefetching into L2 the input of the tile `distance` ids ahead.
  register_both<policy::select<std::uint32_t>::large>("large", {24, 28});
  register_both<select_config<256, 16, true, 1100, 6, 132>>("256x16_6blocks_prefetch132", {24, 28});
  register_both<select_config<256, 16, true, 1100, 6, 264>>("256x16_6blocks_prefetch264", {24, 28});
  register_both<select_config<256, 16, true, 1100, 6, 400>>("256x16_6blocks_prefetch400", {24, 28});
  register_both<select_config<256, 16, true, 1100, 8, 264>>("256x16_8blocks_prefetch264", {24, 28});
  register_both<select_config<256, 24, true, 1100, 4, 132>>("256x24_4blocks_prefetch132", {24, 28});
  register_both<select_config<256, 24, true, 1100, 4, 264>>("256x24_4blocks_prefetch264", {24, 28});
  register_both<select_config<384, 16, true, 1100, 4, 132>>("384x16_4blocks_prefetch132", {24, 28});
  // The compacted tile staged padded (select/select_kernel.cuh) past a share of the tile: always (0),
  // past half, past three quarters (the default), never (101).
  register_both<select_config<256, 16, true, 1100, 6, 132, 0>>("large_padded_always", {24, 28});
  register_both<select_config<256, 16, true, 1100, 6, 132, 50>>("large_padded_past50", {24, 28});
  register_both<select_config<256, 16, true, 1100, 6, 132, 101>>("large_padded_never", {24, 28});
  // The pipelined kernel: warps a role x items a thread x stages (la_ rows), beside the look-back
  // kernel's large and small policies at the same sizes.
  register_both<policy::select<std::uint32_t>::large>("large", {20, 22});
  register_both<policy::select<std::uint32_t>::small>("small", {20, 22});
  using policy::select_lookahead_config;
  register_pipelined<select_lookahead_config<4, 47, 6>>("la_4x47x6");
  register_pipelined<select_lookahead_config<4, 63, 6>>("la_4x63x6");
  register_pipelined<select_lookahead_config<4, 63, 5>>("la_4x63x5");
  register_pipelined<select_lookahead_config<4, 31, 8>>("la_4x31x8");
  register_pipelined<select_lookahead_config<8, 23, 6>>("la_8x23x6");
  register_pipelined<select_lookahead_config<2, 63, 8>>("la_2x63x8");
  register_pipelined<select_lookahead_config<4, 47, 6, 2>>("la_4x47x6_2chunks", {24, 28});
  // select_flagged's and partition's tiles (policy::select<T>::lookahead_flags, lookahead_partition),
  // and select_if's at 2^16.
  register_pipelined<select_lookahead_config<4, 63, 6>>("la_4x63x6", {16});
  for (const auto op : {pipelined_op::select_flagged, pipelined_op::partition}) {
    register_pipelined<select_lookahead_config<4, 47, 6>>("la_4x47x6", {16, 20, 24, 28}, op);
    register_pipelined<select_lookahead_config<4, 55, 6>>("la_4x55x6", {16, 20, 24, 28}, op);
    register_pipelined<select_lookahead_config<4, 63, 5>>("la_4x63x5", {16, 20, 24, 28}, op);
    register_pipelined<select_lookahead_config<4, 39, 8>>("la_4x39x8", {16, 20, 24, 28}, op);
    register_pipelined<select_lookahead_config<4, 31, 6>>("la_4x31x6", {16, 20, 24, 28}, op);
    register_pipelined<select_lookahead_config<4, 47, 5>>("la_4x47x5", {16, 20, 24, 28}, op);
  }
  return true;
}();

}  // namespace
}  // namespace lookback::bench
