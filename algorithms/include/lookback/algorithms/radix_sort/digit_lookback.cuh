#pragma once
// The chained look-back of a digit pass (Adinets & Merrill 2022, Onesweep): for every digit, each tile
// publishes how many of its keys have that digit, then learns how many keys with the digit all earlier
// tiles hold. A thread per digit walks back from the nearest predecessor, adding aggregates until it
// meets an inclusive count. Tiles take ids from an atomic counter, so predecessors are all running.
#include <lookback/primitives/tile/tile_status.cuh>

#include <cstdint>

namespace lookback::radix {

/// Called by the thread of `digit`; `count` is this tile's number of keys with it. Returns the number
/// in all earlier tiles, after publishing this tile's inclusive count.
template <int InitialDelayNs, class StatusArray>
__device__ __forceinline__ unsigned digit_exclusive_count(const StatusArray& tiles, std::int64_t tile, int digit,
                                                          int digits, unsigned count) {
  const std::int64_t mine = tile * digits + digit;
  if (tile == 0) {
    tiles.publish(mine, tile::status::inclusive_prefix, count);
    return 0;
  }
  tiles.publish(mine, tile::status::aggregate, count);
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
  tiles.publish(mine, tile::status::inclusive_prefix, before + count);
  return before;
}

}  // namespace lookback::radix
