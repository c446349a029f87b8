#pragma once
// A running combination that may still be empty: combining an empty one with v gives v itself, so a
// fold never passes through the operator's identity (for floats, 0.0 + -0.0 is +0.0, not -0.0) and
// the deterministic scan's association needs no identity at all.
namespace lookback::thread {

template <class T>
struct partial {
  T value;
  bool has;
};

/// acc op v, or v when acc is empty.
template <class T, class Op>
__host__ __device__ __forceinline__ partial<T> then(const partial<T>& acc, const T& v, Op op) {
  return {acc.has ? op(acc.value, v) : v, true};
}

/// Combines partial values, an empty right side leaving the left as it is: the items past the end of
/// the array are absent from every fold, rather than counted as the identity.
template <class Op>
struct partial_op {
  Op op;
  template <class T>
  __host__ __device__ partial<T> operator()(const partial<T>& a, const partial<T>& b) const {
    return b.has ? then(a, b.value, op) : a;
  }
};

}  // namespace lookback::thread
