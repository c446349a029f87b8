// Every (dtype, operator) instantiation of lookback::reduce, compiled once.
#include "typed/visit.hpp"

#include <lookback/primitives/reduce.cuh>

namespace lookback::typed::detail {

/// From the identity (a whole reduction: an empty or all -0.0 float sum is +0.0, as CUB's), or from
/// neutral_of (a slice whose total another combines: a slice of -0.0s totals -0.0).
void reduce_lookback_from(bool neutral, io::dtype type, op_kind op, void* d_temp, std::size_t& temp_bytes,
                          const void* d_in, void* d_out, std::int64_t n, cudaStream_t stream) {
  visit_numeric(type, [&](auto zero) {
    using T = decltype(zero);
    visit_op(op, [&](auto o) {
      lookback::reduce(d_temp, temp_bytes, static_cast<const T*>(d_in), static_cast<T*>(d_out), n, o,
                       neutral ? lookback::neutral_of<T>(o) : lookback::identity_of<T>(o), stream);
    });
  });
}

void reduce_lookback(io::dtype type, op_kind op, void* d_temp, std::size_t& temp_bytes, const void* d_in, void* d_out,
                     std::int64_t n, cudaStream_t stream) {
  reduce_lookback_from(false, type, op, d_temp, temp_bytes, d_in, d_out, n, stream);
}

void reduce_slice_lookback(io::dtype type, op_kind op, void* d_temp, std::size_t& temp_bytes, const void* d_in,
                           void* d_out, std::int64_t n, cudaStream_t stream) {
  reduce_lookback_from(true, type, op, d_temp, temp_bytes, d_in, d_out, n, stream);
}

}  // namespace lookback::typed::detail
