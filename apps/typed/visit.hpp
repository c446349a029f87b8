#pragma once
// Turns run-time dtypes and operator kinds into compile-time types, in one place.
#include "typed/typed_ops.hpp"

#include <lookback/primitives/operators.cuh>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace lookback::typed {

template <class F>
decltype(auto) visit_numeric(io::dtype type, F&& f) {
  switch (type) {
    case io::dtype::int32: return f(std::int32_t{});
    case io::dtype::uint32: return f(std::uint32_t{});
    case io::dtype::int64: return f(std::int64_t{});
    case io::dtype::uint64: return f(std::uint64_t{});
    case io::dtype::float32: return f(float{});
    case io::dtype::float64: return f(double{});
    default:
      throw std::invalid_argument("dtype " + std::string(io::dtype_name(type)) + " is not supported (supported: " +
                                  numeric_dtype_list() + ")");
  }
}

template <class F>
decltype(auto) visit_op(op_kind op, F&& f) {
  switch (op) {
    case op_kind::sum: return f(lookback::sum{});
    case op_kind::min: return f(lookback::minimum{});
    case op_kind::max: return f(lookback::maximum{});
  }
  throw std::invalid_argument("unknown operator");
}

template <class T>
T scalar_as(const scalar& s) {
  T value;
  static_assert(sizeof(T) <= sizeof(s.bytes));
  std::memcpy(&value, s.bytes.data(), sizeof(T));
  return value;
}

}  // namespace lookback::typed
