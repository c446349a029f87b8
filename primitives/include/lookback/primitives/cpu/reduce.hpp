#pragma once
// CPU reference reduction: a plain left-to-right fold in the accumulator type (double for the
// tests' floating-point references). Host-only, usable from code built without nvcc.
#include <lookback/primitives/cpu/wrapping.hpp>

#include <cstdint>

namespace lookback::cpu {

template <class Acc, class T, class Op>
constexpr Acc reduce(const T* in, std::int64_t n, Op op, Acc init) {
  const auto f = wrapping_op<Acc>(op);
  Acc acc = init;
  for (std::int64_t i = 0; i < n; ++i) acc = f(acc, static_cast<Acc>(in[i]));
  return acc;
}

}  // namespace lookback::cpu
