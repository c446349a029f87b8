#pragma once
// The distributed sort's stable merge of two sorted runs A = a[0, na) and B = b[0, nb) into out, by
// the sort field (the ordered pattern's bits [begin_bit, end_bit), as the radix sort orders).
// Ties take A first, so merging runs in source-rank order keeps equal keys in global order. Merge path
// (Green, McColl and Bader 2012): one kernel finds where every output tile's diagonal crosses the two
// runs; the merge kernel loads a tile's two ranges into shared memory, each thread finds its own
// diagonal there and merges its items, and the tile is stored coalesced: one read and one write of
// every key (and value).
#include <lookback/algorithms/radix_sort/key_bits.cuh>
#include <lookback/distributed/device/merge_policy.cuh>
#include <lookback/distributed/sort_options.hpp>

#include <cstdint>
#include <type_traits>

namespace lookback::dist::device {

template <class Key, bool Descending>
struct field_of {
  int begin_bit;
  std::uint64_t mask;
  __host__ __device__ __forceinline__ std::uint64_t operator()(Key key) const {
    return (static_cast<std::uint64_t>(radix::ordered_bits<Key, Descending>(key)) >> begin_bit) & mask;
  }
};

/// How many of the first d merged items come from A (a and b sorted by `field`; A wins ties).
template <class Index, class Key, class Field>
__device__ __forceinline__ Index merge_path(const Key* a, Index na, const Key* b, Index nb, Index d, Field field) {
  Index lo = d > nb ? d - nb : 0, hi = d < na ? d : na;
  while (lo < hi) {
    const Index mid = lo + (hi - lo) / 2;
    if (field(a[mid]) <= field(b[d - 1 - mid])) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/// splits[t] = the merge path at output position min(t * tile, na + nb), for t in [0, tiles].
template <class Policy, class Key, class Field>
__global__ void merge_partition_kernel(const Key* a, std::int64_t na, const Key* b, std::int64_t nb, Field field,
                                       std::int64_t tiles, std::int64_t* splits) {
  for (std::int64_t t = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; t <= tiles;
       t += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t d = t * Policy::tile_items < na + nb ? t * Policy::tile_items : na + nb;
    splits[t] = merge_path(a, na, b, nb, d, field);
  }
}

template <class Policy, class Key, class Value, class Field>
__global__ void __launch_bounds__(Policy::block_threads)
    merge_kernel(const Key* a, const Value* a_values, std::int64_t na, const Key* b, const Value* b_values,
                 std::int64_t nb, Field field, const std::int64_t* splits, Key* out, Value* values_out) {
  constexpr bool pairs = !std::is_same_v<Value, no_values>;
  constexpr int threads = Policy::block_threads, items = Policy::items_per_thread;
  __shared__ Key s_keys[Policy::tile_items];
  __shared__ std::conditional_t<pairs, Value, char> s_values[pairs ? Policy::tile_items : 1];

  const std::int64_t d0 = blockIdx.x * std::int64_t{Policy::tile_items};
  const std::int64_t d1 = d0 + Policy::tile_items < na + nb ? d0 + Policy::tile_items : na + nb;
  const std::int64_t a0 = splits[blockIdx.x], a1 = splits[blockIdx.x + 1];
  const int la = static_cast<int>(a1 - a0), count = static_cast<int>(d1 - d0);
  // The tile's ranges, A's first: a[a0, a1), then B's from b[d0 - a0]. Every load of a thread is
  // issued before the first store to shared memory, so each thread keeps `items` loads in flight:
  // a loop that stored each item as it came had one, and merged 2^29 keys in 2.2 ms on an H100.
  const std::int64_t b_at = (d0 - a0) - la;
  Key k[items];
  [[maybe_unused]] std::conditional_t<pairs, Value, char> v[items];
#pragma unroll
  for (int j = 0; j < items; ++j) {
    const int i = threadIdx.x + j * threads;
    if (i < count) {
      k[j] = i < la ? a[a0 + i] : b[b_at + i];
      if constexpr (pairs) v[j] = i < la ? a_values[a0 + i] : b_values[b_at + i];
    }
  }
#pragma unroll
  for (int j = 0; j < items; ++j) {
    const int i = threadIdx.x + j * threads;
    if (i < count) {
      s_keys[i] = k[j];
      if constexpr (pairs) s_values[i] = v[j];
    }
  }
  __syncthreads();

  const int lb = count - la;
  const int diag = threadIdx.x * items < count ? threadIdx.x * items : count;
  int ai = merge_path(s_keys, la, s_keys + la, lb, diag, field);
  int bi = la + diag - ai;
#pragma unroll
  for (int j = 0; j < items; ++j) {
    if (diag + j < count) {
      const bool take_a = bi >= count || (ai < la && field(s_keys[ai]) <= field(s_keys[bi]));
      const int from = take_a ? ai++ : bi++;
      k[j] = s_keys[from];
      if constexpr (pairs) v[j] = s_values[from];
    }
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < items; ++j) {
    if (diag + j < count) {
      s_keys[diag + j] = k[j];
      if constexpr (pairs) s_values[diag + j] = v[j];
    }
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < items; ++j) {
    const int i = threadIdx.x + j * threads;
    if (i < count) {
      out[d0 + i] = s_keys[i];
      if constexpr (pairs) values_out[d0 + i] = s_values[i];
    }
  }
}

}  // namespace lookback::dist::device
