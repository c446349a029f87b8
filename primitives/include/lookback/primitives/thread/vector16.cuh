#pragma once
// 16-byte vectors of T: one load or store instruction moves a whole vector.
#include <cstdint>
#include <iterator>
#include <type_traits>

namespace lookback::thread {

template <class T>
struct alignas(16) vector16 {
  static constexpr int size = 16 / sizeof(T);
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

/// Each thread moves its own ItemsPerThread consecutive items (the blocked arrangement) with
/// ItemsPerThread / vector16<T>::size vector instructions.
template <class T, int ItemsPerThread>
struct blocked_vector_io {
  using vec = vector16<T>;
  static_assert(ItemsPerThread % vec::size == 0, "whole vectors per thread");
  static constexpr int vectors = ItemsPerThread / vec::size;

  __device__ static void load(const T* d_tile, T (&items)[ItemsPerThread]) {
    const vec* p = reinterpret_cast<const vec*>(d_tile) + threadIdx.x * vectors;
#pragma unroll
    for (int j = 0; j < vectors; ++j) {
      const vec v = p[j];
#pragma unroll
      for (int e = 0; e < vec::size; ++e) items[j * vec::size + e] = v.items[e];
    }
  }

  __device__ static void store(T* d_tile, const T (&items)[ItemsPerThread]) {
    vec* p = reinterpret_cast<vec*>(d_tile) + threadIdx.x * vectors;
#pragma unroll
    for (int j = 0; j < vectors; ++j) {
      vec v;
#pragma unroll
      for (int e = 0; e < vec::size; ++e) v.items[e] = items[j * vec::size + e];
      p[j] = v;
    }
  }
};

}  // namespace lookback::thread
