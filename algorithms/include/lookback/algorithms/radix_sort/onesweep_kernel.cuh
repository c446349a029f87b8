#pragma once
// One digit pass of the Onesweep radix sort. A tile of keys, held warp-striped as their own bits (the
// ordered pattern a digit comes from is recomputed where needed), is counted per warp and digit; those
// counts are published at once for later tiles' look-backs (early counts) and scanned, so that ranking
// (radix_sort/warp_rank.cuh) hands each key its final slot in the tile, where it is staged at once.
// Each digit's offset among earlier tiles comes from the chained look-back, and the keys, staged in
// shared memory in sorted order, go out in runs of consecutive addresses. Values are loaded only after
// the keys have gone, so they hold no registers during the ranking, and follow their keys through the
// same staging.
#include <lookback/algorithms/radix_sort/digit_lookback.cuh>
#include <lookback/algorithms/radix_sort/key_bits.cuh>
#include <lookback/algorithms/radix_sort/pass_plan.cuh>
#include <lookback/algorithms/radix_sort/warp_rank.cuh>
#include <lookback/primitives/block/block_scan.cuh>
#include <lookback/primitives/detail/dependent_launch.cuh>
#include <lookback/primitives/operators.cuh>
#include <lookback/primitives/thread/packed_fields.cuh>
#include <lookback/primitives/tile/tile_id.cuh>
#include <lookback/primitives/warp/shuffle.cuh>

#include <cstdint>

namespace lookback::radix {

/// Stands in for the value type of a keys-only sort.
struct no_value {};

/// Item k of this thread in a warp-striped tile: each warp's items are contiguous, lane l holds the
/// warp's items l, l + 32, ...
template <int ItemsPerThread>
__device__ __forceinline__ int warp_striped_index(int k) {
  const int warp_first = static_cast<int>(threadIdx.x) / warp::warp_size * warp::warp_size * ItemsPerThread;
  return warp_first + k * warp::warp_size + warp::lane_id();
}

/// Loads a tile warp-striped; past `valid` (a partial last tile) items are `fill`.
template <int ItemsPerThread, class T, class U>
__device__ __forceinline__ void load_warp_striped(const T* d_tile, int valid, bool full, const U& fill,
                                                  T (&items)[ItemsPerThread]) {
  if (full) {
#pragma unroll
    for (int k = 0; k < ItemsPerThread; ++k) items[k] = d_tile[warp_striped_index<ItemsPerThread>(k)];
  } else {
#pragma unroll
    for (int k = 0; k < ItemsPerThread; ++k) {
      const int i = warp_striped_index<ItemsPerThread>(k);
      items[k] = i < valid ? d_tile[i] : static_cast<T>(fill);
    }
  }
}

/// A digit pass's shared memory. The counts have their own space, not the staging's, so that each key
/// goes to the staging as soon as it is ranked and no thread holds its slot through the whole tile
/// (keys only); tiles past 48 KiB come from dynamic shared memory.
template <class Policy, class Key, class Value>
struct onesweep_storage {
  static constexpr int warps = Policy::threads / warp::warp_size;
  static constexpr bool has_values = !std::is_same_v<Value, no_value>;
  static constexpr std::size_t staged_bytes =
      Policy::tile_items * (has_values && sizeof(Value) > sizeof(Key) ? sizeof(Value) : sizeof(Key));
  alignas(16) unsigned char staged[staged_bytes];  // keys, then values, in sorted order
  warp_digit_counts<warps> ranking;
  unsigned digit_out[radix_digits];  // the digit's output position, less its first slot in the tile
  typename block::scan<unsigned, Policy::threads>::storage scan;
  unsigned tile_id;
};

template <class Policy, class Key, class Value, bool Descending, class StatusArray>
__global__ void __launch_bounds__(Policy::threads, Policy::min_blocks)
    onesweep_kernel(const pass_plan* d_plan, int pass, std::int64_t n, int shift, int width, sort_counters* d_counters,
                    StatusArray tiles) {
  constexpr int threads = Policy::threads;
  constexpr int items_per_thread = Policy::items_per_thread;
  constexpr int tile_items = Policy::tile_items;
  constexpr bool has_values = !std::is_same_v<Value, no_value>;
  using bits = bits_t<Key>;
  static_assert(threads >= radix_digits && threads % warp::warp_size == 0, "a thread per digit, whole warps");
  using storage = onesweep_storage<Policy, Key, Value>;
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  storage& s = *reinterpret_cast<storage*>(shared_bytes);

  lookback::detail::allow_dependent_launch();
  // The plan first, then the tile id. Reading the plan while the id is on its way (8e1fd3a) made pairs
  // 5-9% slower and keys 3% at 2^24 in the public sorts (radix_sort_policy.cuh).
  lookback::detail::wait_for_prior_grid();
  const int kind = d_plan->kind[pass];
  if (kind == pass_skip) return;
  if (kind == pass_copy) {
    const std::int64_t tile = blockIdx.x;
    copy_tile<Key, Value>(*d_plan, pass, tile * tile_items, tile::items_in_tile(tile, tile_items, n));
    return;
  }
  const auto* d_keys_in = static_cast<const Key*>(d_plan->key_src[pass]);
  auto* d_keys_out = static_cast<bits*>(d_plan->key_dst[pass]);

  const std::int64_t tile = tile::acquire_tile(d_counters->tile_counters + pass, s.tile_id);
  const std::int64_t base = tile * tile_items;
  const int valid = tile::items_in_tile(tile, tile_items, n);
  const bool full = valid == tile_items;

  // Keys keep their own bits (so -0.0 stays -0.0); digits come from their ordered patterns. Past the
  // end of the last tile stands the key of the largest pattern, whose digit is the pass's last, so
  // those items rank after every real key of the tile and their slots lie past `valid`. Only the
  // last tile has them, and no tile reads its counts.
  bits keys[items_per_thread];
  load_warp_striped(reinterpret_cast<const bits*>(d_keys_in + base), valid, full,
                    key_bits_of<Key, Descending>(static_cast<bits>(~bits{0})), keys);
  // Recomputed where needed rather than held: registers are what limits the tile.
  const auto digit = [&](int k) { return digit_of(ordered_pattern<Key, Descending>(keys[k]), shift, width); };

  // Early counts: published before ranking, so that later tiles' look-backs find them sooner.
  count_warp_digits<items_per_thread>(s.ranking, digit);
  __syncthreads();
  const int d = static_cast<int>(threadIdx.x);
  const unsigned count = d < radix_digits ? exclusive_over_warps(s.ranking, d) : 0u;
  if (d < radix_digits) publish_digit_count(tiles, tile, d, radix_digits, count);
  unsigned tile_total;
  const unsigned start = block::scan<unsigned, threads>::exclusive(count, sum{}, 0u, tile_total, s.scan);
  if (d < radix_digits) add_digit_start(s.ranking, d, start);
  __syncthreads();

  bits* staged_keys = reinterpret_cast<bits*>(s.staged);
  // Slots and digits held for the values, packed: registers are what limits the tile.
  static_assert(tile_items <= 1 << 16, "slots of 16 bits");
  [[maybe_unused]] thread::packed_fields<16, items_per_thread> slots;
  const unsigned lanes_up_to_me = warp::lanes_up_to_me();
#pragma unroll
  for (int k = 0; k < items_per_thread; ++k) {
    const unsigned slot = rank_in_warp<Policy::inline_votes>(s.ranking, digit(k), lanes_up_to_me);
    staged_keys[slot] = keys[k];
    if constexpr (has_values) slots.set(k, slot);
  }
  // The look-back's waits overlap other warps' ranking (looking back before the ranking lost:
  // radix_sort_policy.cuh).
  if (d < radix_digits) {
    const unsigned before = digit_exclusive_count<Policy::initial_delay_ns, Policy::lookback_window>(
        tiles, tile, d, radix_digits, count);
    s.digit_out[d] = d_counters->bases[pass * radix_digits + d] + before - start;
  }
  __syncthreads();

  [[maybe_unused]] thread::packed_fields<radix_bits, items_per_thread> staged_digits;
#pragma unroll
  for (int k = 0; k < items_per_thread; ++k) {
    const int i = k * threads + d;
    const bits b = staged_keys[i];
    const unsigned sd = digit_of(ordered_pattern<Key, Descending>(b), shift, width);
    if constexpr (has_values) staged_digits.set(k, sd);
    if (full || i < valid) d_keys_out[s.digit_out[sd] + i] = b;
  }

  if constexpr (has_values) {
    const auto* d_values_in = static_cast<const Value*>(d_plan->value_src[pass]);
    auto* d_values_out = static_cast<Value*>(d_plan->value_dst[pass]);
    Value values[items_per_thread];
    load_warp_striped(d_values_in + base, valid, full, Value{}, values);
    __syncthreads();
    Value* staged_values = reinterpret_cast<Value*>(s.staged);
#pragma unroll
    for (int k = 0; k < items_per_thread; ++k) staged_values[slots.get(k)] = values[k];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < items_per_thread; ++k) {
      const int i = k * threads + d;
      if (full || i < valid) d_values_out[s.digit_out[staged_digits.get(k)] + i] = staged_values[i];
    }
  }
}

}  // namespace lookback::radix
