#pragma once
// The chained look-back of a digit pass (Adinets & Merrill 2022, Onesweep): a chain per digit
// (tile/chained_lookback.cuh), through which each tile learns how many keys with the digit all
// earlier tiles hold.
#include <lookback/primitives/operators.cuh>
#include <lookback/primitives/tile/chained_lookback.cuh>

#include <cstdint>

namespace lookback::radix {

/// Called by the thread of `digit` as soon as the tile's count of keys with it is known, before the
/// tile ranks its keys, so that later tiles can walk past this one early (Onesweep's early counts).
template <class StatusArray>
__device__ __forceinline__ void publish_digit_count(const StatusArray& tiles, std::int64_t tile, int digit, int digits,
                                                    unsigned count) {
  tile::publish_chain_aggregate(tiles, tile, digit, digits, count);
}

/// Called later by the same thread: the number of keys with the digit in all earlier tiles.
template <int InitialDelayNs, int Window, class StatusArray>
__device__ __forceinline__ unsigned digit_exclusive_count(const StatusArray& tiles, std::int64_t tile, int digit,
                                                          int digits, unsigned count) {
  return tile::chain_exclusive_prefix<InitialDelayNs, Window>(tiles, tile, digit, digits, count, sum{}, 0u);
}

}  // namespace lookback::radix
