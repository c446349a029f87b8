#pragma once
// The up-front work of a sort: one read of the keys counts the digits of every pass at once; then one
// block turns the counts into each digit's first output position per pass, marks the passes whose
// digit is the same in every key (nothing to reorder), and decides on the device which buffer each
// remaining pass reads and writes. So skipping needs no host round trip, and a whole sort can be
// captured in a CUDA graph.
#include <lookback/algorithms/histogram/sample_visit.cuh>
#include <lookback/algorithms/radix_sort/key_bits.cuh>
#include <lookback/primitives/block/block_scan.cuh>
#include <lookback/primitives/operators.cuh>

#include <cstdint>

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

struct pass_plan {
  int skip[max_passes];
  const void* key_src[max_passes];
  void* key_dst[max_passes];
  const void* value_src[max_passes];
  void* value_dst[max_passes];
  // A last copy when the passes left the result elsewhere (null when they did not).
  const void* key_copy_src;
  void* key_copy_dst;
  const void* value_copy_src;
  void* value_copy_dst;
};

/// Digit counts of every pass: d_counts[pass * 256 + digit], zeroed by the caller. The passes are
/// unrolled up to the key's width, so each sample's counts go out as a run of shared atomics with their
/// shifts and masks in registers (a loop over a run-time pass count measured 745 us on an H100 for
/// 2^28 uint32 keys, against CUB's 559 us).
template <class Policy, class Key, bool Descending>
__global__ void __launch_bounds__(Policy::threads)
    digit_histogram_kernel(const Key* d_keys, std::int64_t n, bool aligned, int begin_bit, int end_bit, int passes,
                           unsigned* d_counts) {
  constexpr int key_passes = static_cast<int>(sizeof(Key));  // 8-bit digits
  __shared__ unsigned counts[key_passes][radix_digits];
  for (int i = threadIdx.x; i < passes * radix_digits; i += Policy::threads) (&counts[0][0])[i] = 0;
  unsigned mask[key_passes];
#pragma unroll
  for (int p = 0; p < key_passes; ++p) mask[p] = p < passes ? (1u << pass_width(p, begin_bit, end_bit)) - 1u : 0u;
  __syncthreads();
  histogram::device::for_each_sample<Policy>(d_keys, n, aligned, [&](Key key, bool valid) {
    if (!valid) return;
    const auto bits = ordered_bits<Key, Descending>(key);
#pragma unroll
    for (int p = 0; p < key_passes; ++p)
      if (p < passes) atomicAdd(&counts[p][static_cast<unsigned>(bits >> (begin_bit + radix_bits * p)) & mask[p]], 1u);
  });
  __syncthreads();
  for (int i = threadIdx.x; i < passes * radix_digits; i += Policy::threads)
    if ((&counts[0][0])[i] != 0) atomicAdd(d_counts + i, (&counts[0][0])[i]);
}

/// One block of 256 threads, a thread per digit: d_bases[pass * 256 + digit] = the digit's first
/// output position in that pass, and the plan. (A template, as every kernel in these headers is, so
/// that translation units including it share one definition.)
template <class Count>
__global__ void __launch_bounds__(radix_digits)
    plan_passes_kernel(const Count* d_counts, std::int64_t n, int passes, sort_buffers buffers, Count* d_bases,
                       pass_plan* d_plan) {
  using block_scan = block::scan<Count, radix_digits>;
  __shared__ typename block_scan::storage scan_storage;
  __shared__ int skip[max_passes];
  const int digit = threadIdx.x;
  for (int p = 0; p < passes; ++p) {
    const Count count = d_counts[p * radix_digits + digit];
    Count total;
    d_bases[p * radix_digits + digit] = block_scan::exclusive(count, sum{}, Count{0}, total, scan_storage);
    const int all_in_one = __syncthreads_or(static_cast<std::int64_t>(count) == n);
    if (digit == 0) skip[p] = all_in_one;
  }
  __syncthreads();
  if (digit != 0) return;

  int remaining = 0;
  for (int p = 0; p < passes; ++p) remaining += skip[p] ? 0 : 1;
  const void* key_src = buffers.keys_in;
  const void* value_src = buffers.values_in;
  auto* in_keys = const_cast<void*>(buffers.keys_in);  // writable in double-buffer mode only
  auto* in_values = const_cast<void*>(buffers.values_in);
  int j = 0;
  for (int p = 0; p < max_passes; ++p) {
    const bool run = p < passes && !skip[p];
    d_plan->skip[p] = run ? 0 : 1;
    if (!run) continue;
    // Separate buffers: the last pass writes the target, so they alternate back from it. Double
    // buffers: the first pass writes the other buffer, then they alternate.
    const bool to_other = buffers.double_buffer ? j % 2 == 0 : (remaining - 1 - j) % 2 == 1;
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
  const bool copy = key_src != buffers.keys_target;
  d_plan->key_copy_src = copy ? key_src : nullptr;
  d_plan->key_copy_dst = copy ? buffers.keys_target : nullptr;
  d_plan->value_copy_src = copy ? value_src : nullptr;
  d_plan->value_copy_dst = copy ? buffers.values_target : nullptr;
}

/// The plan's last copy, when it has one.
template <class T>
__global__ void plan_copy_kernel(const pass_plan* d_plan, bool values, std::int64_t n) {
  const void* src = values ? d_plan->value_copy_src : d_plan->key_copy_src;
  void* dst = values ? d_plan->value_copy_dst : d_plan->key_copy_dst;
  if (src == nullptr || dst == nullptr) return;
  const T* s = static_cast<const T*>(src);
  T* d = static_cast<T*>(dst);
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x)
    d[i] = s[i];
}

}  // namespace lookback::radix
