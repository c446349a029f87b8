#pragma once
// The comparison the typed compaction keeps items by, for host and device.
#include "typed/select_ops.hpp"
#include "typed/visit.hpp"

#include <cuda_runtime_api.h>  // __host__ __device__ for host compilers too

namespace lookback::typed {

template <class T>
struct compare_predicate {
  compare_kind kind;
  T value;

  __host__ __device__ bool operator()(const T& x) const {
    switch (kind) {
      case compare_kind::nonzero: return x != T{0};
      case compare_kind::gt: return x > value;
      case compare_kind::ge: return x >= value;
      case compare_kind::lt: return x < value;
      case compare_kind::le: return x <= value;
      case compare_kind::eq: return x == value;
      case compare_kind::ne: return x != value;
    }
    return false;
  }
};

template <class T>
compare_predicate<T> predicate_of(const select_spec& spec) {
  return {spec.compare, spec.compare == compare_kind::nonzero ? T{0} : scalar_as<T>(spec.value)};
}

}  // namespace lookback::typed
