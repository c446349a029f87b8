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

/// A table's input and accumulator: 8- and 16-bit pixels go to the GPU as they are (a table of uint64
/// from uint8 pixels reads an eighth of the bytes a widened plane would take); other inputs are the
/// accumulator's type. Calls f(In{}, Acc{}).
template <class F>
decltype(auto) visit_table_input(io::dtype in, io::dtype acc, F&& f) {
  return visit_accumulator(acc, [&](auto acc_zero) {
    switch (in) {
      case io::dtype::uint8: return f(std::uint8_t{}, acc_zero);
      case io::dtype::uint16: return f(std::uint16_t{}, acc_zero);
      default:
        if (in != acc)
          throw std::invalid_argument("a summed-area table reads uint8, uint16 or its accumulator's " +
                                      std::string(io::dtype_name(acc)) + ", not " + std::string(io::dtype_name(in)));
        return f(acc_zero, acc_zero);
    }
  });
}

}  // namespace lookback::typed
