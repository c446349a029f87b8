#pragma once
// Turns the image operations' run-time element types into compile-time ones, in one place.
#include "io/dtype.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace lookback::typed {

template <class F>
decltype(auto) visit_filter_type(io::dtype type, F&& f) {
  switch (type) {
    case io::dtype::float32: return f(float{});
    case io::dtype::float64: return f(double{});
    default: throw std::invalid_argument("filters compute in float32 or float64, not " + std::string(io::dtype_name(type)));
  }
}

template <class F>
decltype(auto) visit_accumulator(io::dtype type, F&& f) {
  switch (type) {
    case io::dtype::uint32: return f(std::uint32_t{});
    case io::dtype::uint64: return f(std::uint64_t{});
    case io::dtype::float32: return f(float{});
    case io::dtype::float64: return f(double{});
    default:
      throw std::invalid_argument("summed-area tables accumulate in uint32, uint64, float32 or float64, not " +
                                  std::string(io::dtype_name(type)));
  }
}

}  // namespace lookback::typed
