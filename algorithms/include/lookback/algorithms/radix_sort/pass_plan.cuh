#pragma once
// The up-front work of a sort: one read of the keys counts the digits of every pass at once; then the
// histogram's last block turns the counts into each digit's first output position per pass, marks the
// passes whose digit is the same in every key (nothing to reorder), and decides on the device which
// buffer each remaining pass reads and writes. So skipping needs no host round trip, and a whole sort
// can be captured in a CUDA graph.
#include <lookback/algorithms/histogram/sample_visit.cuh>
#include <lookback/algorithms/radix_sort/digit_counters.cuh>
#include <lookback/algorithms/radix_sort/key_bits.cuh>
#include <lookback/primitives/detail/dependent_launch.cuh>
#include <lookback/primitives/operators.cuh>
#include <lookback/primitives/warp/shuffle.cuh>
#include <lookback/primitives/warp/warp_scan.cuh>

#include <cstdint>
#include <type_traits>
#include <utility>

namespace lookback::radix {

inline constexpr int max_passes = 8;  // 64-bit keys

/// Where the keys (and values) are and must end. Separate buffers: `in` is read only, the result goes
/// to `target`, `other` is scratch. Double buffers: `in` is the current buffer and may be overwritten,
/// `other` the alternate one, `target` whichever of the two the caller was told holds the result.
struct sort_buffers {
  const void* keys_in;
  void* keys_target;
  void* keys_other;
  const void* values_in;  // null for keys only
  void* values_target;
  void* values_other;
  bool double_buffer;
};

/// What a pass does: reorders by its digit, does nothing (every key has the same digit), or copies its
/// source to its destination, which stands in for a skipped pass when skipping would leave the result in
/// the wrong buffer: so no sort needs a copy kernel after its passes.
enum pass_kind : int { pass_run = 0, pass_skip = 1, pass_copy = 2 };

struct pass_plan {
  int kind[max_passes];
  const void* key_src[max_passes];
  void* key_dst[max_passes];
  const void* value_src[max_passes];
  void* value_dst[max_passes];
};

/// Counters the sort zeroes before the histogram: each pass's digit counts and bases, each pass's tile
/// counter, and the histogram's count of finished blocks.
struct sort_counters {
  unsigned counts[max_passes * radix_digits];
  unsigned bases[max_passes * radix_digits];
  unsigned tile_counters[max_passes];
  unsigned histogram_blocks_done;
};

/// By one thread, once the skipped passes are known: which buffer each pass reads and writes. Here on
/// the device, because only the device knows which passes skip, and the host must not wait for it.
__device__ inline void route_passes(const int (&skip)[max_passes], int passes, const sort_buffers& buffers,
                                    pass_plan* d_plan) {
  int remaining = 0;
  int first_skipped = -1;
  for (int p = 0; p < passes; ++p) {
    remaining += skip[p] ? 0 : 1;
    if (skip[p] && first_skipped < 0) first_skipped = p;
  }
  // Separate buffers need a pass that writes the target; double buffers need the result where the
  // caller will look (the target is `in` after an even number of passes, `other` after an odd one).
  const bool target_is_in = buffers.keys_target == buffers.keys_in;
  const bool copy = buffers.double_buffer ? (remaining % 2 == 0) != target_is_in : remaining == 0;
  const int copy_pass = copy ? first_skipped : -1;
  const int moves = remaining + (copy ? 1 : 0);
  const void* key_src = buffers.keys_in;
  const void* value_src = buffers.values_in;
  auto* in_keys = const_cast<void*>(buffers.keys_in);  // writable in double-buffer mode only
  auto* in_values = const_cast<void*>(buffers.values_in);
  int j = 0;
  for (int p = 0; p < max_passes; ++p) {
    const bool moves_data = p < passes && (!skip[p] || p == copy_pass);
    d_plan->kind[p] = !moves_data ? pass_skip : skip[p] ? pass_copy : pass_run;
    if (!moves_data) continue;
    // Separate buffers: the last move writes the target, so they alternate back from it. Double
    // buffers: the first move writes the other buffer, then they alternate.
    const bool to_other = buffers.double_buffer ? j % 2 == 0 : (moves - 1 - j) % 2 == 1;
    void* key_dst = to_other ? buffers.keys_other : (buffers.double_buffer ? in_keys : buffers.keys_target);
    void* value_dst = to_other ? buffers.values_other : (buffers.double_buffer ? in_values : buffers.values_target);
    d_plan->key_src[p] = key_src;
    d_plan->key_dst[p] = key_dst;
    d_plan->value_src[p] = value_src;
    d_plan->value_dst[p] = value_dst;
    key_src = key_dst;
    value_src = value_dst;
    ++j;
  }
}

/// By a block of radix_digits threads, after every digit count is in: c.bases[pass * 256 + digit] =
/// the digit's first output position in that pass, the passes whose digit is the same in every key
/// marked skipped, and the plan. All passes are scanned at once, warp by warp, with one barrier (a
/// block of its own scanning them one after another took 6.4 us on an H100, as long as the histogram).
__device__ inline void plan_passes(sort_counters& c, std::int64_t n, int passes, const sort_buffers& buffers,
                                   pass_plan* d_plan) {
  constexpr int warps = radix_digits / warp::warp_size;
  __shared__ unsigned warp_totals[max_passes][warps];
  __shared__ int skip[max_passes];
  const int digit = static_cast<int>(threadIdx.x);
  const int lane = warp::lane_id();
  const int w = digit / warp::warp_size;
  if (digit < max_passes) skip[digit] = 0;
  unsigned count[max_passes];
#pragma unroll
  for (int p = 0; p < max_passes; ++p) count[p] = p < passes ? __ldcg(c.counts + p * radix_digits + digit) : 0u;
  __syncthreads();  // skip[] cleared
  unsigned inclusive[max_passes];
#pragma unroll
  for (int p = 0; p < max_passes; ++p) {
    if (p < passes && static_cast<std::int64_t>(count[p]) == n) skip[p] = 1;
    inclusive[p] = warp::inclusive_scan(count[p], sum{});
    if (lane == warp::warp_size - 1) warp_totals[p][w] = inclusive[p];
  }
  __syncthreads();
#pragma unroll
  for (int p = 0; p < max_passes; ++p) {
    if (p >= passes) continue;
    unsigned before = inclusive[p] - count[p];
    for (int v = 0; v < w; ++v) before += warp_totals[p][v];
    c.bases[p * radix_digits + digit] = before;
  }
  if (digit == 0) route_passes(skip, passes, buffers, d_plan);
}

/// Calls f(std::integral_constant<int, count>{}) for the run-time count in [1, sizeof...(C)].
template <class F, int... C>
__device__ __forceinline__ void with_static_count(int count, F& f, std::integer_sequence<int, C...>) {
  ((count == C + 1 ? (f(std::integral_constant<int, C + 1>{}), true) : false) || ...);
}

/// Passes of 8-bit digits over a whole key.
template <class Key>
inline constexpr int key_passes = static_cast<int>(sizeof(Key));

/// The histogram's shared counters for the policy and key (digit_counters.cuh).
template <class Policy, class Key>
using histogram_counters =
    std::conditional_t<Policy::lane_copies != 0, lane_digit_counters<key_passes<Key>, Policy::lane_copies>,
                       block_digit_counters<key_passes<Key>>>;

/// Digit counts of every pass into c.counts[pass * 256 + digit], zeroed by the kernel before; the last block
/// to finish then plans the passes (plan_passes), so the sort launches no kernel between the histogram
/// and its first pass. The passes are unrolled up to the key's width, so each sample's counts go out
/// as a run of shared atomics with their shifts and masks in registers (a loop over a run-time pass
/// count measured 745 us on an H100 for 2^28 uint32 keys, against CUB's 559 us).
template <class Policy, class Key, bool Descending>
__global__ void __launch_bounds__(Policy::threads)
    digit_histogram_kernel(const Key* d_keys, std::int64_t n, bool aligned, int begin_bit, int end_bit, int passes,
                           sort_counters* d_counters, sort_buffers buffers, pass_plan* d_plan) {
  static_assert(Policy::threads == radix_digits, "a thread per digit plans the passes");
  lookback::detail::allow_dependent_launch();
  extern __shared__ __align__(16) unsigned char histogram_shared[];
  auto counts = histogram_counters<Policy, Key>::make(histogram_shared);
  __shared__ bool last_block;
  counts.zero(passes);
  unsigned mask[key_passes<Key>];
#pragma unroll
  for (int p = 0; p < key_passes<Key>; ++p) mask[p] = p < passes ? (1u << pass_width(p, begin_bit, end_bit)) - 1u : 0u;
  __syncthreads();
  // Each pass count as its own straight-line code: a test of each pass against a run-time count put a
  // branch around each atomic (2^28 uint32 keys on an H100, ncu at base clocks: 584 us with the tests,
  // 565 without; bits [8, 24) sorted in 2.48 ms, against 2.51 with the tests).
  const auto count_passes = [&](auto counted) {
    histogram::device::for_each_sample<Policy>(d_keys, n, aligned, [&](Key key, bool valid) {
      if (!valid) return;
      const auto bits = ordered_bits<Key, Descending>(key);
#pragma unroll
      for (int p = 0; p < decltype(counted)::value; ++p)
        counts.add(p, static_cast<unsigned>(bits >> (begin_bit + radix_bits * p)) & mask[p]);
    });
  };
  with_static_count(passes, count_passes, std::make_integer_sequence<int, key_passes<Key>>{});
  // The counters are cleared by the kernel this one is launched dependent on (detail/clear_then_launch.cuh):
  // counting in shared memory overlapped it.
  lookback::detail::wait_for_prior_grid();
  __syncthreads();
  sort_counters& c = *d_counters;
  counts.flush(passes, c.counts);
  // The last block to finish sees every block's counts: each publishes its own before counting itself
  // done.
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) last_block = atomicAdd(&c.histogram_blocks_done, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last_block) return;
  __threadfence();
  plan_passes(c, n, passes, buffers, d_plan);
}

/// A copy pass: each block copies its tile's keys (and values) from the pass's source to its
/// destination. It runs only when keys share the digits of every skipped pass, so a plain loop is
/// enough: it is never on a sort's common path.
template <class Key, class Value>
__device__ __forceinline__ void copy_tile(const pass_plan& plan, int pass, std::int64_t base, int valid) {
  const auto* key_src = static_cast<const Key*>(plan.key_src[pass]) + base;
  auto* key_dst = static_cast<Key*>(plan.key_dst[pass]) + base;
  for (int i = static_cast<int>(threadIdx.x); i < valid; i += static_cast<int>(blockDim.x)) key_dst[i] = key_src[i];
  if constexpr (!std::is_empty_v<Value>) {
    const auto* value_src = static_cast<const Value*>(plan.value_src[pass]) + base;
    auto* value_dst = static_cast<Value*>(plan.value_dst[pass]) + base;
    for (int i = static_cast<int>(threadIdx.x); i < valid; i += static_cast<int>(blockDim.x)) value_dst[i] = value_src[i];
  }
}

}  // namespace lookback::radix
