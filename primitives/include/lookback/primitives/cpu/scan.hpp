#pragma once
// CPU reference scans: sequential, in the accumulator type. `out` may equal `in`.
#include <lookback/primitives/cpu/wrapping.hpp>

#include <cstdint>

namespace lookback::cpu {

template <class Acc, class T, class Out, class Op>
constexpr void exclusive_scan(const T* in, Out* out, std::int64_t n, Acc init, Op op) {
  const auto f = wrapping_op<Acc>(op);
  Acc running = init;
  for (std::int64_t i = 0; i < n; ++i) {
    const Acc item = static_cast<Acc>(in[i]);
    out[i] = static_cast<Out>(running);
    running = f(running, item);
  }
}

template <class Acc, class T, class Out, class Op>
constexpr void inclusive_scan(const T* in, Out* out, std::int64_t n, Op op) {
  if (n == 0) return;
  const auto f = wrapping_op<Acc>(op);
  Acc running = static_cast<Acc>(in[0]);
  out[0] = static_cast<Out>(running);
  for (std::int64_t i = 1; i < n; ++i) {
    running = f(running, static_cast<Acc>(in[i]));
    out[i] = static_cast<Out>(running);
  }
}

}  // namespace lookback::cpu
