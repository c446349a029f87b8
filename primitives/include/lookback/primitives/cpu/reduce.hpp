#pragma once
// CPU reference reduction: a plain left-to-right fold in the accumulator type (double for the
// tests' floating-point references). Host-only, usable from code built without nvcc.
#include <cstdint>

namespace lookback::cpu {

template <class Acc, class T, class Op>
Acc reduce(const T* in, std::int64_t n, Op op, Acc init) {
  Acc acc = init;
  for (std::int64_t i = 0; i < n; ++i) acc = op(acc, static_cast<Acc>(in[i]));
  return acc;
}

}  // namespace lookback::cpu
