#pragma once
// A non-commutative operator for scan tests: affine maps of integers modulo 2^bits under composition.
namespace lookback::test {

// x -> a*x + b modulo 2^bits; composing maps is associative but not commutative, so any tile or
// look-back window combined out of order gives a wrong answer.
template <class Word>
struct affine {
  Word a, b;
};
template <class Word>
bool operator==(const affine<Word>& l, const affine<Word>& r) {
  return l.a == r.a && l.b == r.b;
}

struct compose {
  template <class Word>
  __host__ __device__ affine<Word> operator()(const affine<Word>& f, const affine<Word>& g) const {
    return {static_cast<Word>(g.a * f.a), static_cast<Word>(g.a * f.b + g.b)};
  }
  template <class T>
  __host__ __device__ static T identity() {
    return T{1, 0};
  }
};

}  // namespace lookback::test
