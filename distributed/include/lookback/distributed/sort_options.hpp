#pragma once
// What a distributed sort orders by, shared by the algorithm and its backends.
#include <cstdint>

namespace lookback::dist {

/// The value type of a keys-only sort.
struct no_values {};

struct sort_options {
  bool descending = false;
  int begin_bit = 0;  // [begin_bit, end_bit) of the keys' order-preserving pattern (radix_sort/key_bits.cuh)
  int end_bit = -1;   // -1: the key's width
  // Parts each rank's share is exchanged and merged in, so that merging overlaps the exchange
  // (run_exchange.hpp); 0: chosen by size (detail::exchange_parts in sort.hpp).
  int exchange_parts = 0;
};

}  // namespace lookback::dist
