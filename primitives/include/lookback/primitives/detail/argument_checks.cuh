#pragma once
// Arguments refused on the host, before anything is launched: a negative count, or a null array a
// call would touch. A null array would fault on the device, far from the call, and leave the context
// unusable; the exception names the function and the argument instead.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace lookback::detail {

inline void check_item_count(long long n, const char* who) {
  if (n < 0) throw std::invalid_argument(std::string(who) + ": negative item count " + std::to_string(n));
}

/// Refuses a null `array` when the call has `items` elements for it. Iterators that are not pointers
/// (counting, transforming) pass: they have no null.
template <class It>
void check_array(const It& array, std::int64_t items, const char* who, const char* name) {
  if constexpr (std::is_pointer_v<It>)
    if (items > 0 && array == nullptr)
      throw std::invalid_argument(std::string(who) + ": " + name + " is a null pointer, with " +
                                  std::to_string(items) + " items to process");
}

/// Refuses two byte ranges that overlap (refuse_overlap's test, for arrays of different extents).
inline void refuse_overlapping_bytes(const void* a, std::uintptr_t a_bytes, const void* b, std::uintptr_t b_bytes,
                                     const char* who, const char* names) {
  const auto first = reinterpret_cast<std::uintptr_t>(a), second = reinterpret_cast<std::uintptr_t>(b);
  if (a_bytes > 0 && b_bytes > 0 && first < second + b_bytes && second < first + a_bytes)
    throw std::invalid_argument(std::string(who) + ": " + names + " overlap (the call does not run in place)");
}

/// Refuses two arrays of n items whose bytes overlap, where the algorithm reads one while it writes the
/// other from other blocks (a sort's passes, a compaction's tiles): items not yet read would be
/// overwritten. As CUB's, such calls do not run in place.
template <class T, class U>
void refuse_overlap(const T* a, const U* b, std::int64_t items, const char* who, const char* names) {
  refuse_overlapping_bytes(a, static_cast<std::uintptr_t>(items) * sizeof(T), b,
                           static_cast<std::uintptr_t>(items) * sizeof(U), who, names);
}

}  // namespace lookback::detail
