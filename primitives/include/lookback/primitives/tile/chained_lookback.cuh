#pragma once
// Many decoupled look-back chains side by side, one thread per chain: chain c of tile t lives at
// entry t * chains + c. A radix digit pass keeps a chain per digit (Onesweep), a summed-area table's
// column pass a chain per column. Each tile publishes its aggregate for the chain as soon as it knows
// it, then walks back over its predecessors, combining aggregates until it meets an inclusive prefix.
// Tiles must take their ids from an atomic counter, so that every predecessor is already running.
#include <lookback/primitives/tile/tile_status.cuh>

#include <cstdint>

namespace lookback::tile {

/// The tile's aggregate for the chain; tile 0 has no predecessors, so its aggregate is inclusive.
template <class StatusArray, class T>
__device__ __forceinline__ void publish_chain_aggregate(const StatusArray& tiles, std::int64_t tile, std::int64_t chain,
                                                        std::int64_t chains, const T& aggregate) {
  tiles.publish(tile * chains + chain, tile == 0 ? status::inclusive_prefix : status::aggregate, aggregate);
}

/// Called later by the same thread: the combination of the chain over all earlier tiles, after
/// publishing this tile's inclusive prefix. Waits first `InitialDelayNs`, giving predecessors time to
/// publish, where polling at once would only add memory traffic. Reads `Window` predecessors at a
/// time, so that a walk past many aggregates takes fewer round trips to memory.
template <int InitialDelayNs, int Window = 1, class StatusArray, class T, class Op>
__device__ __forceinline__ T chain_exclusive_prefix(const StatusArray& tiles, std::int64_t tile, std::int64_t chain,
                                                    std::int64_t chains, const T& aggregate, Op op, const T& identity) {
  static_assert(Window >= 1, "at least one predecessor a read");
  if (tile == 0) return identity;
  if constexpr (InitialDelayNs > 0) __nanosleep(InitialDelayNs);
  T before = identity;
  std::int64_t next = tile - 1;  // the newest predecessor not yet combined
  for (;;) {
    T value[Window];
    status st[Window];
#pragma unroll
    for (int w = 0; w < Window; ++w) {
      if (next - w >= 0) {
        st[w] = tiles.read((next - w) * chains + chain, value[w]);
      } else {  // never combined: tile 0's prefix is inclusive, so the walk stops there
        st[w] = status::inclusive_prefix;
        value[w] = identity;
      }
    }
    // Combined newest first, up to an inclusive prefix or up to a predecessor not ready yet, which is
    // then read again with those before it.
    int combined = 0;
    bool done = false;
#pragma unroll
    for (int w = 0; w < Window; ++w) {
      if (st[w] == status::not_ready) break;
      before = op(value[w], before);
      combined = w + 1;
      if (st[w] == status::inclusive_prefix) {
        done = true;
        break;
      }
    }
    if (done) break;
    next -= combined;
  }
  tiles.publish(tile * chains + chain, status::inclusive_prefix, op(before, aggregate));
  return before;
}

}  // namespace lookback::tile
