#pragma once
// The small kernels of the distributed algorithms' device steps: a rank's scan offset folded from the
// ranks' totals, and the splitter search's counts in a sorted slice.
#include <lookback/algorithms/radix_sort/key_bits.cuh>

#include <cstdint>

namespace lookback::dist::device {

/// *out = init op totals[0] op ... op totals[count - 1], or without init from totals[0]. One thread:
/// count is the number of ranks.
template <class T, class Op>
__global__ void fold_kernel(const T* totals, int count, bool has_init, T init, Op op, T* out) {
  T acc = has_init ? init : totals[0];
  for (int i = has_init ? 0 : 1; i < count; ++i) acc = op(acc, totals[i]);
  *out = acc;
}

/// counts[q] = how many sorted keys have a sort field at most probes[q]: a binary search per probe.
template <bool Descending, class Key>
__global__ void count_at_most_kernel(const Key* sorted, std::int64_t n, int begin_bit, std::uint64_t mask,
                                     const std::uint64_t* probes, std::int64_t m, std::int64_t* counts) {
  for (std::int64_t q = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; q < m; q += std::int64_t{gridDim.x} * blockDim.x) {
    const std::uint64_t probe = probes[q];
    std::int64_t lo = 0, hi = n;
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      const std::uint64_t field =
          (static_cast<std::uint64_t>(radix::ordered_bits<Key, Descending>(sorted[mid])) >> begin_bit) & mask;
      if (field <= probe) lo = mid + 1;
      else hi = mid;
    }
    counts[q] = lo;
  }
}

}  // namespace lookback::dist::device
