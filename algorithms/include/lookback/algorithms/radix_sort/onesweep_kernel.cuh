#pragma once
// One digit pass of the Onesweep radix sort: a tile of keys is ranked by digit inside the block (warps
// rank their keys with match-any votes into per-warp digit counts, in input order, so the sort is
// stable), each digit's offset among earlier tiles comes from the chained look-back, and the keys,
// staged in shared memory in their sorted order, go out in runs of consecutive addresses. Values
// follow their keys through the same staging.
#include <lookback/algorithms/radix_sort/digit_lookback.cuh>
#include <lookback/algorithms/radix_sort/key_bits.cuh>
#include <lookback/algorithms/radix_sort/pass_plan.cuh>
#include <lookback/primitives/block/block_scan.cuh>
#include <lookback/primitives/operators.cuh>
#include <lookback/primitives/tile/tile_id.cuh>
#include <lookback/primitives/warp/shuffle.cuh>

#include <cstdint>

namespace lookback::radix {

/// Stands in for the value type of a keys-only sort.
struct no_value {};

/// The lanes whose digit equals this lane's (digits of `width` bits, or radix_digits for no item):
/// a ballot per bit, as CUB's ranking does it, rather than __match_any_sync.
__device__ __forceinline__ unsigned lanes_with_equal_digit(int digit, int width) {
  unsigned peers = __ballot_sync(warp::full_mask, digit < radix_digits);
  if (digit >= radix_digits) peers = ~peers;
  for (int b = 0; b < width; ++b) {
    const bool set = (digit >> b) & 1;
    const unsigned vote = __ballot_sync(warp::full_mask, set);
    peers &= set ? vote : ~vote;
  }
  return peers;
}

template <class Policy, class Key, class Value, bool Descending, class StatusArray>
__global__ void __launch_bounds__(Policy::threads, Policy::min_blocks)
    onesweep_kernel(const pass_plan* d_plan, int pass, std::int64_t n, int shift, int width, const unsigned* d_bases,
                    StatusArray tiles, unsigned* d_tile_counter) {
  constexpr int threads = Policy::threads;
  constexpr int items_per_thread = Policy::items_per_thread;
  constexpr int tile_items = Policy::tile_items;
  constexpr int warps = threads / warp::warp_size;
  constexpr bool has_values = !std::is_same_v<Value, no_value>;
  static_assert(threads == radix_digits, "a thread per digit");
  constexpr std::size_t staged_bytes = tile_items * (sizeof(Key) > sizeof(Value) ? sizeof(Key) : sizeof(Value));
  struct storage {
    alignas(16) unsigned char staged[staged_bytes];  // keys, then values, in sorted order
    unsigned char staged_digit[tile_items];
    unsigned warp_counts[warps][radix_digits];       // then each warp's offset within the digit
    // Keys per digit in the tile, then the digit's first slot in the tile (thread d alone reads
    // entry d between the two).
    unsigned digit_start[radix_digits];
    std::int64_t digit_out[radix_digits];            // slot i of the digit goes to digit_out + i
    typename block::scan<unsigned, threads>::storage scan;
    unsigned tile_id;
  };
  __shared__ storage s;

  if (d_plan->skip[pass]) return;
  const auto* d_keys_in = static_cast<const Key*>(d_plan->key_src[pass]);
  auto* d_keys_out = static_cast<Key*>(d_plan->key_dst[pass]);

  for (int i = threadIdx.x; i < warps * radix_digits; i += threads) (&s.warp_counts[0][0])[i] = 0;
  s.digit_start[threadIdx.x] = 0;
  const std::int64_t tile = tile::acquire_tile(d_tile_counter, s.tile_id);
  const std::int64_t base = tile * tile_items;
  const int valid = tile::items_in_tile(tile, tile_items, n);
  const int lane = warp::lane_id();
  const int warp_index = static_cast<int>(threadIdx.x) / warp::warp_size;
  // Warp-striped: the warp's items are contiguous, lane l holds items l, l + 32, ...
  const int warp_first = warp_index * warp::warp_size * items_per_thread;

  Key keys[items_per_thread];
  int digit[items_per_thread];
#pragma unroll
  for (int k = 0; k < items_per_thread; ++k) {
    const int i = warp_first + k * warp::warp_size + lane;
    if (i < valid) {
      keys[k] = d_keys_in[base + i];
      digit[k] = static_cast<int>(digit_of(ordered_bits<Key, Descending>(keys[k]), shift, width));
    } else {
      digit[k] = radix_digits;  // past the end: ranked by nobody
    }
  }
  [[maybe_unused]] Value values[has_values ? items_per_thread : 1];
  if constexpr (has_values) {
    const auto* d_values_in = static_cast<const Value*>(d_plan->value_src[pass]);
#pragma unroll
    for (int k = 0; k < items_per_thread; ++k) {
      const int i = warp_first + k * warp::warp_size + lane;
      if (i < valid) values[k] = d_values_in[base + i];
    }
  }

  // Early counts: publish the tile's digit counts before ranking, so that later tiles' look-backs
  // find them sooner and walk back less.
#pragma unroll
  for (int k = 0; k < items_per_thread; ++k)
    if (digit[k] < radix_digits) atomicAdd(&s.digit_start[digit[k]], 1u);
  __syncthreads();
  const unsigned count = s.digit_start[threadIdx.x];
  publish_digit_count(tiles, tile, static_cast<int>(threadIdx.x), radix_digits, count);

  // Rank within the warp: lanes with equal digits find each other, the lowest of them adds their
  // number to the warp's count for the digit, and each takes the old count plus the equal lanes
  // before it. Items go in input order (k, then lane), which keeps the sort stable.
  unsigned rank[items_per_thread];
  const unsigned lower_lanes = (1u << lane) - 1u;
#pragma unroll
  for (int k = 0; k < items_per_thread; ++k) {
    const unsigned peers = lanes_with_equal_digit(digit[k], width);
    const int leader = __ffs(static_cast<int>(peers)) - 1;
    unsigned old = 0;
    if (lane == leader && digit[k] < radix_digits) {
      old = s.warp_counts[warp_index][digit[k]];
      s.warp_counts[warp_index][digit[k]] = old + __popc(peers);
    }
    rank[k] = __shfl_sync(warp::full_mask, old, leader) + __popc(peers & lower_lanes);
    __syncwarp();
  }
  __syncthreads();

  // A thread per digit: warp offsets within the digit, its place in the tile and, through the
  // look-back, in the output.
  const int d = threadIdx.x;
  unsigned running = 0;
#pragma unroll
  for (int w = 0; w < warps; ++w) {
    const unsigned c = s.warp_counts[w][d];
    s.warp_counts[w][d] = running;
    running += c;
  }
  unsigned tile_total;
  const unsigned start = block::scan<unsigned, threads>::exclusive(count, sum{}, 0u, tile_total, s.scan);
  const unsigned before = digit_exclusive_count<Policy::initial_delay_ns>(tiles, tile, d, radix_digits, count);
  s.digit_start[d] = start;
  s.digit_out[d] = static_cast<std::int64_t>(d_bases[d]) + before - start;
  __syncthreads();

  Key* staged_keys = reinterpret_cast<Key*>(s.staged);
  unsigned slot[items_per_thread];
#pragma unroll
  for (int k = 0; k < items_per_thread; ++k) {
    if (digit[k] < radix_digits) {
      slot[k] = s.digit_start[digit[k]] + s.warp_counts[warp_index][digit[k]] + rank[k];
      staged_keys[slot[k]] = keys[k];
      s.staged_digit[slot[k]] = static_cast<unsigned char>(digit[k]);
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < valid; i += threads) d_keys_out[s.digit_out[s.staged_digit[i]] + i] = staged_keys[i];

  if constexpr (has_values) {
    auto* d_values_out = static_cast<Value*>(d_plan->value_dst[pass]);
    Value* staged_values = reinterpret_cast<Value*>(s.staged);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < items_per_thread; ++k)
      if (digit[k] < radix_digits) staged_values[slot[k]] = values[k];
    __syncthreads();
    for (int i = threadIdx.x; i < valid; i += threads)
      d_values_out[s.digit_out[s.staged_digit[i]] + i] = staged_values[i];
  }
}

}  // namespace lookback::radix
