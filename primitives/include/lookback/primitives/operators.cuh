#pragma once
// Binary operators with their identities. A user-defined operator works with every primitive when it
// is associative and has a static member `template <class T> static T identity()`.
#include <cuda_runtime_api.h>  // __host__ __device__ for host compilers too

#include <cuda/std/limits>

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

/// op with its arguments swapped: reducing lanes in ascending order with it combines them in
/// descending order, which is how the look-back window meets its predecessors.
template <class Op>
struct swapped {
  Op op;
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const { return op(b, a); }
};

}  // namespace lookback
