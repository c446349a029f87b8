#pragma once
// Integer sums on the CPU wrap modulo 2^bits, as they do on the GPU. A signed sum that overflows is
// undefined in C++, so it runs in the unsigned type of the same width; every CPU reference folds
// through wrapping_op, so no caller can forget it. Host-only.
#include <type_traits>

namespace lookback {
struct sum;  // operators.cuh; only its identity matters here
}

namespace lookback::cpu {

/// `op` as is, but a lookback::sum of signed integers T wraps.
template <class T, class Op>
struct wrapping {
  Op op;
  constexpr T operator()(const T& a, const T& b) const {
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T> && std::is_same_v<Op, lookback::sum>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
    } else {
      return op(a, b);
    }
  }
};

template <class T, class Op>
constexpr wrapping<T, Op> wrapping_op(Op op) {
  return {op};
}

}  // namespace lookback::cpu
