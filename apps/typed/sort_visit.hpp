#pragma once
// Compile-time types for sort key dtypes and value widths.
#include "typed/sort_ops.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace lookback::typed {

/// The value type of a keys-only sort.
struct keys_only {};

template <class F>
decltype(auto) visit_sort_key(io::dtype type, F&& f) {
  switch (type) {
    case io::dtype::uint8: return f(std::uint8_t{});
    case io::dtype::uint16: return f(std::uint16_t{});
    case io::dtype::uint32: return f(std::uint32_t{});
    case io::dtype::int32: return f(std::int32_t{});
    case io::dtype::float32: return f(float{});
    case io::dtype::uint64: return f(std::uint64_t{});
    case io::dtype::int64: return f(std::int64_t{});
    case io::dtype::float64: return f(double{});
    default:
      throw std::invalid_argument("dtype " + std::string(io::dtype_name(type)) +
                                  " is not a sort key type (supported: " + sort_key_list() + ")");
  }
}

/// Values are moved, never compared, so their bits are all that matters.
template <class F>
decltype(auto) visit_sort_value(int value_bytes, F&& f) {
  switch (value_bytes) {
    case 0: return f(keys_only{});
    case 4: return f(std::uint32_t{});
    case 8: return f(std::uint64_t{});
    default: throw std::invalid_argument("sort values are 4 or 8 bytes wide, not " + std::to_string(value_bytes));
  }
}

}  // namespace lookback::typed
