#pragma once
// The chained look-back of a digit pass (Adinets & Merrill 2022, Onesweep): for every digit, each tile
// publishes how many of its keys have that digit, then learns how many keys with the digit all earlier
// tiles hold. A thread per digit walks back from the nearest predecessor, adding aggregates until it
// meets an inclusive count. Tiles take ids from an atomic counter, so predecessors are all running.
#include <lookback/primitives/tile/tile_status.cuh>

#include <cstdint>

namespace lookback::radix {

/// Called by the thread of `digit` as soon as the tile's count of keys with it is known, before the
/// tile ranks its keys, so that later tiles can walk past this one early (Onesweep's early counts).
/// Tile 0 has no predecessors: its count is already inclusive.
template <class StatusArray>
__device__ __forceinline__ void publish_digit_count(const StatusArray& tiles, std::int64_t tile, int digit, int digits,
                                                    unsigned count) {
  tiles.publish(tile * digits + digit, tile == 0 ? tile::status::inclusive_prefix : tile::status::aggregate, count);
}

/// Called later by the same thread: the number of keys with the digit in all earlier tiles, after
/// publishing this tile's inclusive count.
template <int InitialDelayNs, class StatusArray>
__device__ __forceinline__ unsigned digit_exclusive_count(const StatusArray& tiles, std::int64_t tile, int digit,
                                                          int digits, unsigned count) {
  if (tile == 0) return 0;
  if constexpr (InitialDelayNs > 0) __nanosleep(InitialDelayNs);
  unsigned before = 0;
  for (std::int64_t predecessor = tile - 1; predecessor >= 0; --predecessor) {
    unsigned value;
    tile::status st;
    do {
      st = tiles.read(predecessor * digits + digit, value);
    } while (st == tile::status::not_ready);
    before += value;
    if (st == tile::status::inclusive_prefix) break;
  }
  tiles.publish(tile * digits + digit, tile::status::inclusive_prefix, before + count);
  return before;
}

}  // namespace lookback::radix
