#pragma once
// Compile-time types for sort key dtypes and value widths.
#include "typed/sort_ops.hpp"

#include <cstdint>
#include <type_traits>
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

/// Calls f(keys_in, keys_out, values_in, values_out) with the arrays as pointers to the spec's key and
/// value types (keys_only pointers, null, for a keys-only sort).
template <class F>
void visit_sort_arrays(const sort_spec& spec, const void* d_keys_in, void* d_keys_out, const void* d_values_in,
                       void* d_values_out, F&& f) {
  visit_sort_key(spec.key, [&](auto key_zero) {
    using Key = decltype(key_zero);
    visit_sort_value(spec.value_bytes, [&](auto value_zero) {
      using Value = decltype(value_zero);
      f(static_cast<const Key*>(d_keys_in), static_cast<Key*>(d_keys_out), static_cast<const Value*>(d_values_in),
        static_cast<Value*>(d_values_out));
    });
  });
}

/// Whether a visited values pointer is a keys-only sort's.
template <class ValuePtr>
inline constexpr bool no_values = std::is_same_v<std::remove_cv_t<std::remove_pointer_t<ValuePtr>>, keys_only>;

}  // namespace lookback::typed
