#pragma once
// CPU reference sort: stable, by the same bit field of the same order-preserving pattern as the GPU's
// radix sort (radix_sort/key_bits.cuh), so that its order is the GPU's and CUB's, bit for bit.
#include <lookback/algorithms/radix_sort/key_bits.cuh>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

namespace lookback::cpu {

/// Bits [begin_bit, end_bit) of the key's ordered pattern (inverted for a descending sort), as an
/// unsigned number whose order is the sort's.
template <class Key, bool Descending>
std::uint64_t sort_field(Key key, int begin_bit, int end_bit) {
  const int width = end_bit - begin_bit;
  const std::uint64_t mask = width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
  return (static_cast<std::uint64_t>(radix::ordered_bits<Key, Descending>(key)) >> begin_bit) & mask;
}

/// The permutation that sorts keys[0, n) stably by that field: out[i] = keys[order[i]].
template <class Key, bool Descending>
std::vector<std::int64_t> stable_sort_order(const Key* keys, std::int64_t n, int begin_bit, int end_bit) {
  std::vector<std::uint64_t> fields(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < fields.size(); ++i) fields[i] = sort_field<Key, Descending>(keys[i], begin_bit, end_bit);
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), std::int64_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return fields[a] < fields[b]; });
  return order;
}

}  // namespace lookback::cpu
