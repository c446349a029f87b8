#pragma once
// Binary operators with their identities. A user-defined operator works with every primitive when it
// is associative and has a static member `template <class T> static T identity()`.
#include <cuda_runtime_api.h>  // __host__ __device__ for host compilers too

#include <cuda/std/limits>
#include <cuda/std/type_traits>

namespace lookback {

struct sum {
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const { return a + b; }
  template <class T>
  __host__ __device__ static constexpr T identity() { return T(0); }
};

struct minimum {
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const { return b < a ? b : a; }
  template <class T>
  __host__ __device__ static constexpr T identity() {
    return cuda::std::numeric_limits<T>::has_infinity ? cuda::std::numeric_limits<T>::infinity()
                                                       : cuda::std::numeric_limits<T>::max();
  }
};

struct maximum {
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const { return a < b ? b : a; }
  template <class T>
  __host__ __device__ static constexpr T identity() {
    return cuda::std::numeric_limits<T>::has_infinity ? -cuda::std::numeric_limits<T>::infinity()
                                                       : cuda::std::numeric_limits<T>::lowest();
  }
};

template <class T, class Op>
__host__ __device__ constexpr T identity_of(const Op&) {
  return Op::template identity<T>();
}

/// What the kernels start from and pad with: the element that leaves every value as it is, bits
/// included. That is the operator's identity, but for a floating-point sum -0.0, since +0.0 + -0.0 is
/// +0.0: started from +0.0, an inclusive sum whose first item is -0.0 would begin with +0.0 where CUB
/// and the CPU begin with the item itself. The identity (+0.0) stays what an empty reduction and a
/// default initial value give, as CUB's do.
template <class T, class Op>
__host__ __device__ constexpr T neutral_of(const Op& op) {
  if constexpr (cuda::std::is_same_v<Op, sum> && cuda::std::is_floating_point_v<T>)
    return -T(0);
  else
    return identity_of<T>(op);
}

/// op with its arguments swapped: reducing lanes in ascending order with it combines them in
/// descending order, which is how the look-back window meets its predecessors.
template <class Op>
struct swapped {
  Op op;
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const { return op(b, a); }
};

}  // namespace lookback
