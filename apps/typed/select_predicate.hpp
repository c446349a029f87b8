#pragma once
// The comparison the typed compaction keeps items by, for host and device.
#include "typed/select_ops.hpp"
#include "typed/visit.hpp"

#include <cuda_runtime_api.h>  // __host__ __device__ for host compilers too

#include <limits>

namespace lookback::typed {

template <class T>
struct compare_predicate {
  compare_kind kind;
  T value;  // unused for nonzero

  /// No branch and no table walk an item: the kind's row of `answers` does not depend on the item, so
  /// in a loop it is found once, and an item costs its comparisons and two selects. The pipelined
  /// compaction's few deciding warps hide no latency: with a switch on the kind an item (and the
  /// selector read from the kernel's parameters) it took 1.39 ms for 2^28 uint32 on an H100, 0.52-0.73
  /// with a lookup of the kind's row and the outcome an item, and ncu then still found the deciding
  /// warps issuing 18 instructions an item (bench/results/compaction-decisions.md). The comparisons are
  /// IEEE's, so NaN is unordered: only ne and nonzero keep it.
  __host__ __device__ bool operator()(const T& x) const {
    const T against = kind == compare_kind::nonzero ? T{0} : value;
    const unsigned row = static_cast<unsigned>(answers >> (static_cast<unsigned>(kind) * 8u));
    const bool keeps_lt = (row & 0x10u) != 0;
    const bool keeps_eq = (row & 0x04u) != 0;
    const bool keeps_gt = (row & 0x02u) != 0;
    if constexpr (std::numeric_limits<T>::is_integer) {
      return x < against ? keeps_lt : x == against ? keeps_eq : keeps_gt;
    } else {  // floats and halves: an item that is neither is NaN
      const bool keeps_unordered = (row & 0x01u) != 0;
      return x < against ? keeps_lt : x == against ? keeps_eq : x > against ? keeps_gt : keeps_unordered;
    }
  }

 private:
  // Byte k: for compare_kind k, bit (lt << 2 | eq << 1 | gt) says whether that outcome keeps the item
  // (bit 0: unordered).
  static constexpr unsigned long long answers = 0x13ull            // nonzero: lt, gt or unordered
                                                | 0x02ull << 8     // gt
                                                | 0x06ull << 16    // ge
                                                | 0x10ull << 24    // lt
                                                | 0x14ull << 32    // le
                                                | 0x04ull << 40    // eq
                                                | 0x13ull << 48;   // ne
};

template <class T>
compare_predicate<T> predicate_of(const select_spec& spec) {
  return {spec.compare, spec.compare == compare_kind::nonzero ? T{0} : scalar_as<T>(spec.value)};
}

}  // namespace lookback::typed
