// Every (dtype, operator) instantiation of lookback::reduce, compiled once.
#include "typed/visit.hpp"

#include <lookback/primitives/reduce.cuh>

namespace lookback::typed::detail {

void reduce_lookback(io::dtype type, op_kind op, void* d_temp, std::size_t& temp_bytes, const void* d_in, void* d_out,
                     std::int64_t n, cudaStream_t stream) {
  visit_numeric(type, [&](auto zero) {
    using T = decltype(zero);
    visit_op(op, [&](auto o) {
      lookback::reduce(d_temp, temp_bytes, static_cast<const T*>(d_in), static_cast<T*>(d_out), n, o,
                       lookback::identity_of<T>(o), stream);
    });
  });
}

}  // namespace lookback::typed::detail
