#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

namespace lookback::io {

enum class dtype { bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64 };

std::size_t dtype_size(dtype t);

// Canonical spelling, used in messages and help text: "bool", "int8", ..., "float64".
std::string_view dtype_name(dtype t);

// Canonical names plus NumPy-style codes ("i4", "u8", "f4", "b1") and C names
// ("float", "double"); case-insensitive.  Codes count bytes ("i8" is int64),
// as in NumPy, so descr strings and CLI flags mean the same thing.
std::optional<dtype> parse_dtype(std::string_view s);

// float32 or float64.
constexpr bool is_floating(dtype t) { return t == dtype::float32 || t == dtype::float64; }

// Maps a C++ element type to its dtype, for code templated on the element type.
template <class T>
constexpr dtype dtype_of() {
  if constexpr (std::is_same_v<T, bool>)
    return dtype::bool_;
  else if constexpr (std::is_same_v<T, std::int8_t>)
    return dtype::int8;
  else if constexpr (std::is_same_v<T, std::int16_t>)
    return dtype::int16;
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return dtype::int32;
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return dtype::int64;
  else if constexpr (std::is_same_v<T, std::uint8_t>)
    return dtype::uint8;
  else if constexpr (std::is_same_v<T, std::uint16_t>)
    return dtype::uint16;
  else if constexpr (std::is_same_v<T, std::uint32_t>)
    return dtype::uint32;
  else if constexpr (std::is_same_v<T, std::uint64_t>)
    return dtype::uint64;
  else if constexpr (std::is_same_v<T, float>)
    return dtype::float32;
  else if constexpr (std::is_same_v<T, double>)
    return dtype::float64;
  else
    static_assert(sizeof(T) == 0, "no dtype for this element type");
}

}  // namespace lookback::io
