#pragma once
// 16-byte vectors of T: one load or store instruction moves a whole vector.
#include <cstdint>
#include <iterator>
#include <type_traits>

namespace lookback::thread {

template <class T>
struct alignas(16) vector16 {
  // Types wider than 16 bytes never load as vectors (see vectorizable); one item keeps sizes positive.
  static constexpr int size = sizeof(T) <= 16 ? static_cast<int>(16 / sizeof(T)) : 1;
  T items[size];
};

/// Whether `It` is a plain pointer to T that 16-byte vectors can read or write.
template <class It, class T>
inline constexpr bool vectorizable =
    std::is_pointer_v<It> && std::is_same_v<std::remove_cv_t<typename std::iterator_traits<It>::value_type>, T> &&
    (16 % sizeof(T) == 0);

template <class It>
bool aligned16(It p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

/// Whether full tiles of T from `d_in` to `d_out` may move as 16-byte vectors.
template <class T, class InputIt, class OutputIt>
bool vector_tiles(InputIt d_in, OutputIt d_out) {
  if constexpr (vectorizable<InputIt, T> && vectorizable<OutputIt, T>) return aligned16(d_in) && aligned16(d_out);
  return false;
}

}  // namespace lookback::thread
