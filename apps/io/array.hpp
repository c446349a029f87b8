#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "io/dtype.hpp"

namespace lookback::io {

// A dense, C-ordered, little-endian array in host memory.  bytes comes from
// operator new, whose alignment (16 on the supported ABIs) suits every dtype,
// which is what makes as<T>() safe.
struct host_array {
  dtype type = dtype::uint8;
  std::vector<std::int64_t> shape;
  std::vector<std::byte> bytes;

  // Element count; the empty product makes a 0-d array hold one element.
  std::int64_t size() const {
    std::int64_t n = 1;
    for (std::int64_t d : shape) n *= d;
    return n;
  }

  template <class T>
  const T* as() const {
    return reinterpret_cast<const T*>(bytes.data());
  }
  template <class T>
  T* as() {
    return reinterpret_cast<T*>(bytes.data());
  }
};

// Python tuple spelling, as in .npy headers and NumPy messages: "()", "(5,)", "(3, 4)".
inline std::string shape_string(const std::vector<std::int64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

}  // namespace lookback::io
