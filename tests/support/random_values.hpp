#pragma once
// Random inputs for the GPU tests, drawn afresh each run from the test's seeded generator.
#include "affine_op.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

namespace lookback::test {

template <class T>
struct is_affine : std::false_type {};
template <class Word>
struct is_affine<affine<Word>> : std::true_type {};

/// n values of T. Affine maps get odd multipliers, so that a composition never collapses to a constant
/// map and an operand combined out of order still shows. Floating-point values are small integers, so
/// that every partial sum stays below 2^24 and is exact in any association. Everything else is random
/// bytes, a draw per 8 bytes (the cases past 2^31 items spend their time here otherwise).
template <class T>
std::vector<T> random_values(std::int64_t n, std::mt19937_64& rng) {
  static_assert(std::is_trivially_copyable_v<T>, "filled byte for byte");
  std::vector<T> values(static_cast<std::size_t>(n));
  if constexpr (is_affine<T>::value) {
    using Word = decltype(T::a);
    for (T& f : values) f = {static_cast<Word>(rng() | 1), static_cast<Word>(rng())};
  } else if constexpr (std::is_floating_point_v<T>) {
    for (T& x : values) x = static_cast<T>(rng() % 8);
  } else {
    auto* const bytes = reinterpret_cast<unsigned char*>(values.data());
    const std::size_t size = values.size() * sizeof(T);
    for (std::size_t i = 0; i < size; i += 8) {
      const std::uint64_t r = rng();
      std::memcpy(bytes + i, &r, std::min<std::size_t>(8, size - i));
    }
  }
  return values;
}

/// n values for the cases past 2^31 items, where mt19937_64 would take most of a test's time: a 32-bit
/// xorshift seeded from the test's generator, each value `make(word)`.
template <class T, class Make>
std::vector<T> quick_random_values(std::int64_t n, std::mt19937_64& rng, Make make) {
  std::vector<T> values(static_cast<std::size_t>(n));
  std::uint32_t state = static_cast<std::uint32_t>(rng()) | 1u;
  for (T& x : values) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    x = make(state);
  }
  return values;
}

/// The keys of the uint16 sorts past 2^31 items, and how many of each value there are (the sorted keys
/// are each value repeated its count). No key equals `poison`: such a case runs once, so an item the
/// sort never wrote must show.
struct uint16_keys {
  std::vector<std::uint16_t> keys;
  std::vector<std::int64_t> counts;
};

inline uint16_keys uint16_keys_except(std::int64_t n, std::uint16_t poison, std::mt19937_64& rng) {
  uint16_keys drawn;
  drawn.keys = quick_random_values<std::uint16_t>(n, rng, [poison](std::uint32_t word) {
    const auto k = static_cast<std::uint16_t>(word % 65535u);
    return static_cast<std::uint16_t>(k >= poison ? k + 1 : k);
  });
  drawn.counts.assign(65536, 0);
  for (const std::uint16_t k : drawn.keys) ++drawn.counts[k];
  return drawn;
}

/// The first item of `sorted` that is not each value repeated its count in `counts`; -1 when none.
inline std::int64_t first_unsorted_item(const std::uint16_t* sorted, const std::vector<std::int64_t>& counts) {
  std::int64_t at = 0;
  for (std::size_t value = 0; value < counts.size(); ++value)
    for (std::int64_t c = 0; c < counts[value]; ++c, ++at)
      if (sorted[at] != value) return at;
  return -1;
}

}  // namespace lookback::test
