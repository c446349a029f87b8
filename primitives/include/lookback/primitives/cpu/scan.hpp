#pragma once
// CPU reference scans: sequential, in the accumulator type. `out` may equal `in`.
#include <cstdint>

namespace lookback::cpu {

template <class Acc, class T, class Out, class Op>
void exclusive_scan(const T* in, Out* out, std::int64_t n, Acc init, Op op) {
  Acc running = init;
  for (std::int64_t i = 0; i < n; ++i) {
    const Acc item = static_cast<Acc>(in[i]);
    out[i] = static_cast<Out>(running);
    running = op(running, item);
  }
}

template <class Acc, class T, class Out, class Op>
void inclusive_scan(const T* in, Out* out, std::int64_t n, Op op) {
  if (n == 0) return;
  Acc running = static_cast<Acc>(in[0]);
  out[0] = static_cast<Out>(running);
  for (std::int64_t i = 1; i < n; ++i) {
    running = op(running, static_cast<Acc>(in[i]));
    out[i] = static_cast<Out>(running);
  }
}

}  // namespace lookback::cpu
