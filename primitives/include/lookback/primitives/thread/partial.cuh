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

}  // namespace lookback::thread
