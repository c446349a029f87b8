// Compaction policies side by side (tile shape, wait before the first look-back poll, blocks an SM;
// the pipelined kernel's warps, items and stages) on uint32 values in [0, 1000), 2^28 of them (some
// 2^16 to 2^24 too; uint64 on the pipelined kernel's 8-byte candidates), 1%, 50% and 99% kept by
// select_if (and, on the pipelined kernel's tiles and the small arrays' two kernels, by select_flagged
// and partition), for choosing policy::select. Not part of the main table; run with --benchmark_filter=select_tune.
#include "support/bench_support.cuh"
#include "typed/select_predicate.hpp"

#include <lookback/algorithms/select.cuh>

#include <optional>
#include <string>

namespace lookback::bench {
namespace {

using policy::select_config;

/// What a row does with the values: select_if by value, select_flagged by byte flags drawn the same way
/// ("flags_" rows), partition ("partition_" rows).
enum class compaction { select_if, select_flagged, partition };

/// A row of n values of T (uint32 unless named) keeping `percent`: query(d_in, selector, d_out, d_count,
/// n) answers the temporary bytes (none: the policy does not fit this device), run(d_temp, temp_bytes,
/// d_in, selector, d_out, d_count, n) does the work.
template <compaction Op, class T = std::uint32_t, class Query, class Run>
void register_run(const char* label, int percent, std::int64_t n, Query query, Run run) {
  constexpr io::dtype type = io::dtype_of<T>();
  const char* prefix = Op == compaction::select_flagged ? "flags_" : Op == compaction::partition ? "partition_" : "";
  const std::string name = std::string(prefix) + label + "_" + std::to_string(percent) + "pct";
  register_gpu_benchmark(bench_name("select_tune", name.c_str(), type, n), [=](benchmark::State& state) {
    const auto* d_in = static_cast<const T*>(random_input(type, n));
    auto* d_out = static_cast<T*>(scratch(static_cast<std::size_t>(n) * sizeof(T), 0));
    auto* d_count = static_cast<std::int64_t*>(scratch(sizeof(std::int64_t), 1));
    const auto threshold = static_cast<T>(percent * 10);
    const auto selector = [&] {
      if constexpr (Op == compaction::select_flagged)
        return select::flags_selector<std::uint8_t>{flags_below(d_in, n, threshold, 3), true};
      else
        return select::predicate_selector<typed::compare_predicate<T>>{{typed::compare_kind::lt, threshold}};
    }();
    const std::optional<std::size_t> answer = query(d_in, selector, d_out, d_count, n);
    if (!answer) return state.SkipWithError("the stages do not fit a block's shared memory");
    std::size_t temp_bytes = *answer;
    void* d_temp = scratch(temp_bytes, 2);
    // Bytes moved: the values (and flags) read, the kept values (partition: every value) written.
    const double kept = Op == compaction::partition ? 1.0 : percent / 100.0;
    const double bytes =
        static_cast<double>(n) * (sizeof(T) + (Op == compaction::select_flagged ? 1.0 : 0.0) + sizeof(T) * kept);
    time_gpu(state, bytes, n, [&] { run(d_temp, temp_bytes, d_in, selector, d_out, d_count, n); });
  });
}

template <class Policy>
void register_policy(const char* label, int percent, std::int64_t n = std::int64_t{1} << 28) {
  register_run<compaction::select_if>(
      label, percent, n,
      [](auto d_in, auto selector, auto d_out, auto d_count, std::int64_t n) -> std::optional<std::size_t> {
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

/// The pipelined kernel (select/select_lookahead_kernel.cuh) with Policy's tiles, on items of T.
template <class Policy, compaction Op = compaction::select_if, class T = std::uint32_t>
void register_pipelined(const char* label, std::initializer_list<int> log_sizes = {20, 22, 24, 28}) {
  for (const int log_n : log_sizes)
    for (const int percent : {1, 50, 99})
      register_run<Op, T>(
          label, percent, std::int64_t{1} << log_n,
          [](auto d_in, auto selector, auto d_out, auto, std::int64_t n) -> std::optional<std::size_t> {
            if (!select::detail::select_lookahead_applies<Policy, Op == compaction::partition>(d_in, selector, d_out))
              return std::nullopt;
            return select::detail::select_lookahead_layout<Policy>(n).total();
          },
          [](void* d_temp, std::size_t&, auto d_in, auto selector, auto d_out, auto d_count, std::int64_t n) {
            select::detail::select_lookahead<Policy, Op == compaction::partition>(d_temp, d_in, selector, d_out,
                                                                               d_count, n, 0, stream());
          });
}

/// The small arrays' two kernels (count, then compact) with Policy's tiles, on items of T.
template <class Policy, compaction Op, class T = std::uint32_t>
void register_counted(const char* label, std::initializer_list<int> log_sizes) {
  constexpr bool partition = Op == compaction::partition;
  for (const int log_n : log_sizes)
    for (const int percent : {1, 50, 99})
      register_run<Op, T>(
          label, percent, std::int64_t{1} << log_n,
          [](auto d_in, auto selector, auto d_out, auto d_count, std::int64_t n) -> std::optional<std::size_t> {
            std::size_t bytes = 0;
            select::detail::count_then_compact<Policy, partition>(nullptr, bytes, d_in, selector, d_out, d_count, n,
                                                                  stream());
            return bytes;
          },
          [](void* d_temp, std::size_t& bytes, auto d_in, auto selector, auto d_out, auto d_count, std::int64_t n) {
            select::detail::count_then_compact<Policy, partition>(d_temp, bytes, d_in, selector, d_out, d_count, n,
                                                                  stream());
          });
}

/// Each op's two-kernel rows up to 4 MiB: 256 x 16, 256 x 8 and 128 x 8 tiles for uint32, 128 x 16,
/// 256 x 8 and 128 x 8 for uint64.
void register_counted_shapes() {
  using u64 = std::uint64_t;
  const auto each_op = [](auto policy, const char* label, auto value, std::initializer_list<int> log_sizes) {
    using P = decltype(policy);
    using T = decltype(value);
    register_counted<P, compaction::select_if, T>(label, log_sizes);
    register_counted<P, compaction::select_flagged, T>(label, log_sizes);
    register_counted<P, compaction::partition, T>(label, log_sizes);
  };
  each_op(select_config<256, 16, true, 0>{}, "counted_256x16", std::uint32_t{}, {16, 18, 20});
  each_op(select_config<256, 8, true, 0>{}, "counted_256x8", std::uint32_t{}, {16, 18, 20});
  each_op(select_config<128, 8, true, 0>{}, "counted_128x8", std::uint32_t{}, {16, 18, 20});
  each_op(select_config<128, 16, true, 0>{}, "counted_128x16", u64{}, {16, 18, 19});
  each_op(select_config<256, 8, true, 0>{}, "counted_256x8", u64{}, {16, 18, 19});
  each_op(select_config<128, 8, true, 0>{}, "counted_128x8", u64{}, {16, 18, 19});
}

/// "la_4x47x6": the pipelined policy's warps a role, items a thread and stages; "_c8" where its
/// look-ahead reads other than 4 x 32 descriptors a poll, "_w200" where it waits 200 ns after a poll
/// that found nothing new.
template <class Policy>
std::string shape_label() {
  const std::string chunks = Policy::lookahead_chunks == 4 ? "" : "_c" + std::to_string(Policy::lookahead_chunks);
  const std::string wait = Policy::retry_delay_ns == 0 ? "" : "_w" + std::to_string(Policy::retry_delay_ns);
  return "la_" + std::to_string(Policy::warps) + "x" + std::to_string(Policy::items_per_thread) + "x" +
         std::to_string(Policy::stages) + chunks + wait;
}

/// Op's rows on items of T for each pipelined policy, labelled by its shape.
template <compaction Op, class T, class... Policies>
void register_shapes(std::initializer_list<int> log_sizes) {
  (register_pipelined<Policies, Op, T>(shape_label<Policies>().c_str(), log_sizes), ...);
}

/// select_flagged's or partition's candidate tiles (policy::select<T>::lookahead_flags,
/// lookahead_partition), from 2^16 items; smaller stages (4 x 23 x 6, three blocks an SM) from 2^20.
template <compaction Op>
void register_small_tile_shapes() {
  using policy::select_lookahead_config;
  register_shapes<Op, std::uint32_t, select_lookahead_config<4, 47, 6>, select_lookahead_config<4, 55, 6>,
                  select_lookahead_config<4, 63, 5>, select_lookahead_config<4, 39, 8>,
                  select_lookahead_config<4, 31, 6>, select_lookahead_config<4, 47, 5>>({16, 20, 24, 28});
  register_shapes<Op, std::uint32_t, select_lookahead_config<4, 23, 6>>({20, 24, 28});
}

/// uint64 items on the pipelined kernel, whose 4-byte tiles of 63 items a thread would not fit a
/// block's shared memory at 8 bytes: candidates for select_if, select_flagged and partition, beside the
/// main table's uint64 rows. At 2^20 (8 MiB) the 4 x 31 tiles stayed level with CUB, hence the second
/// set at 2^20 and 2^24: a tile a block (4 x 63 x 3, 4 x 47 x 4), or two and three blocks an SM (2 x 31
/// x 6, 4 x 31 x 3, 4 x 15 x 4); for flags, whose 4 x 31 x 5 stayed level with CUB at 2^20, the first two.
void register_eight_byte_shapes() {
  using policy::select_lookahead_config;
  using u64 = std::uint64_t;
  register_shapes<compaction::select_if, u64, select_lookahead_config<4, 31, 6>, select_lookahead_config<4, 23, 8>,
                  select_lookahead_config<4, 15, 8>>({16, 20, 24, 28});
  register_shapes<compaction::select_flagged, u64, select_lookahead_config<4, 31, 5>,
                  select_lookahead_config<4, 23, 6>>({16, 20, 24, 28});
  register_shapes<compaction::partition, u64, select_lookahead_config<4, 31, 6>, select_lookahead_config<4, 19, 8>,
                  select_lookahead_config<4, 23, 8>>({16, 20, 24, 28});
  register_shapes<compaction::select_if, u64, select_lookahead_config<4, 63, 3>, select_lookahead_config<4, 47, 4>,
                  select_lookahead_config<2, 31, 6>, select_lookahead_config<4, 31, 3>,
                  select_lookahead_config<4, 15, 4>>({20, 24});
  register_shapes<compaction::partition, u64, select_lookahead_config<4, 47, 4>, select_lookahead_config<2, 31, 6>,
                  select_lookahead_config<4, 31, 3>>({20, 24});
  register_shapes<compaction::select_flagged, u64, select_lookahead_config<4, 47, 4>,
                  select_lookahead_config<4, 63, 3>>({20, 24});
  // Where the tiny tiles (the pipelined policy below 2^19, before the two kernels took small arrays)
  // should give way to the large ones.
  register_shapes<compaction::select_if, u64, select_lookahead_config<4, 15, 8>, select_lookahead_config<4, 47, 4>>(
      {17, 18, 19});
  register_shapes<compaction::select_flagged, u64, select_lookahead_config<4, 23, 6>,
                  select_lookahead_config<4, 47, 4>>({17, 18, 19});
  register_shapes<compaction::partition, u64, select_lookahead_config<4, 19, 8>, select_lookahead_config<4, 47, 4>>(
      {17, 18, 19});
  register_shapes<compaction::select_if, u64, select_lookahead_config<4, 31, 6>>({18, 19, 21});
  register_shapes<compaction::select_flagged, u64, select_lookahead_config<4, 31, 5>>({18, 19, 21});
  register_shapes<compaction::partition, u64, select_lookahead_config<4, 31, 6>>({18, 19, 21});
  // Partition at 2^24 stayed 1.18x-1.19x CUB (1.2x asked) at 95% of a memcpy: tiles of 27 to 39 items a
  // thread in as many stages as fit.
  register_shapes<compaction::partition, u64, select_lookahead_config<4, 27, 7>, select_lookahead_config<4, 35, 5>,
                  select_lookahead_config<4, 39, 4>, select_lookahead_config<4, 23, 7>>({24, 28});
  // select_if at 1% kept is bound by its four deciding warps (two measured slower: 2 x 31 x 6 above), so
  // eight a role: tiles of 15 to 31 items a thread in as many stages as fit.
  register_shapes<compaction::select_if, u64, select_lookahead_config<8, 15, 6>, select_lookahead_config<8, 19, 5>,
                  select_lookahead_config<8, 23, 4>, select_lookahead_config<8, 31, 3>>({20, 24, 28});
  register_shapes<compaction::select_flagged, u64, select_lookahead_config<8, 15, 5>,
                  select_lookahead_config<8, 19, 4>>({20, 24, 28});
  register_shapes<compaction::partition, u64, select_lookahead_config<8, 15, 6>, select_lookahead_config<8, 19, 5>>(
      {20, 24, 28});
}

/// uint32 below 2^19, where partition's 4 x 39 x 8 tiles (thirteen at 2^16) measured 0.97x-0.98x CUB
/// and uint64's tiny ones ran faster at the same item count: smaller tiles for each op, beside the large
/// ones (whose rows at 2^16 are registered above).
void register_four_byte_tiny_shapes() {
  using policy::select_lookahead_config;
  using u32 = std::uint32_t;
  register_shapes<compaction::partition, u32, select_lookahead_config<4, 19, 8>, select_lookahead_config<4, 23, 8>,
                  select_lookahead_config<4, 15, 8>>({16, 17, 18, 19});
  register_shapes<compaction::select_if, u32, select_lookahead_config<4, 31, 8>, select_lookahead_config<4, 23, 8>>(
      {16, 17, 18, 19});
  register_shapes<compaction::select_flagged, u32, select_lookahead_config<4, 23, 6>>({16, 17, 18, 19});
  register_shapes<compaction::partition, u32, select_lookahead_config<4, 39, 8>>({17, 18, 19});
  register_shapes<compaction::select_if, u32, select_lookahead_config<4, 63, 6>>({17, 18, 19});
  register_shapes<compaction::select_flagged, u32, select_lookahead_config<4, 63, 5>, select_lookahead_config<4, 31, 6>>(
      {17, 18, 19});
}

/// The look-ahead reading 2, 8 or 16 x 32 descriptors a poll instead of 4 (tile/running_lookahead.cuh): a
/// block's consecutive tiles lie about an SM count of tiles apart, which 4 x 32 covers in two polls.
void register_lookahead_chunks() {
  using policy::select_lookahead_config;
  using u64 = std::uint64_t;
  register_shapes<compaction::select_if, std::uint32_t, select_lookahead_config<4, 47, 6, 2>>({24, 28});
  register_shapes<compaction::select_if, std::uint32_t, select_lookahead_config<4, 63, 6, 8>,
                  select_lookahead_config<4, 63, 6, 16>>({20, 24, 28});
  register_shapes<compaction::select_flagged, std::uint32_t, select_lookahead_config<4, 63, 5, 8>,
                  select_lookahead_config<4, 63, 5, 16>>({20, 24, 28});
  register_shapes<compaction::partition, std::uint32_t, select_lookahead_config<4, 39, 8, 8>,
                  select_lookahead_config<4, 39, 8, 16>>({20, 24, 28});
  register_shapes<compaction::select_if, u64, select_lookahead_config<4, 31, 6, 8>,
                  select_lookahead_config<4, 31, 6, 16>>({24, 28});
  register_shapes<compaction::select_flagged, u64, select_lookahead_config<4, 31, 5, 8>>({24, 28});
  register_shapes<compaction::partition, u64, select_lookahead_config<4, 31, 6, 8>>({24, 28});
}

/// The look-ahead waiting 100 or 300 ns after a poll that found nothing new (tile/running_lookahead.cuh)
/// instead of polling again at once: 132 look-ahead warps polling the descriptors share L2 with the loads.
void register_lookahead_waits() {
  using policy::select_lookahead_config;
  register_shapes<compaction::select_if, std::uint32_t, select_lookahead_config<4, 63, 6, 4, 100>,
                  select_lookahead_config<4, 63, 6, 4, 300>>({20, 24, 28});
  register_shapes<compaction::partition, std::uint32_t, select_lookahead_config<4, 39, 8, 4, 100>,
                  select_lookahead_config<4, 39, 8, 4, 300>>({24, 28});
}

const bool registered = [] {
  register_counted_shapes();
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
  register_shapes<compaction::select_if, std::uint32_t, select_lookahead_config<4, 47, 6>,
                  select_lookahead_config<4, 63, 6>, select_lookahead_config<4, 63, 5>,
                  select_lookahead_config<4, 31, 8>, select_lookahead_config<8, 23, 6>,
                  select_lookahead_config<2, 63, 8>>({20, 22, 24, 28});
  // select_if's tiles at 2^16, and select_flagged's and partition's.
  register_shapes<compaction::select_if, std::uint32_t, select_lookahead_config<4, 63, 6>>({16});
  register_small_tile_shapes<compaction::select_flagged>();
  register_small_tile_shapes<compaction::partition>();
  register_eight_byte_shapes();
  register_four_byte_tiny_shapes();
  register_lookahead_chunks();
  register_lookahead_waits();
  return true;
}();

}  // namespace
}  // namespace lookback::bench
