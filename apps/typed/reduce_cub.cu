// Every (dtype, operator) instantiation of the CUB reference reduction, compiled once.
#include "typed/visit.hpp"

#include <lookback/primitives/error.cuh>

#include <cub/device/device_reduce.cuh>

namespace lookback::typed::detail {

void reduce_cub(io::dtype type, op_kind op, void* d_temp, std::size_t& temp_bytes, const void* d_in, void* d_out,
                std::int64_t n, cudaStream_t stream) {
  visit_numeric(type, [&](auto zero) {
    using T = decltype(zero);
    const auto* in = static_cast<const T*>(d_in);
    auto* out = static_cast<T*>(d_out);
    switch (op) {
      case op_kind::sum: LOOKBACK_CUDA_TRY(cub::DeviceReduce::Sum(d_temp, temp_bytes, in, out, n, stream)); break;
      case op_kind::min: LOOKBACK_CUDA_TRY(cub::DeviceReduce::Min(d_temp, temp_bytes, in, out, n, stream)); break;
      case op_kind::max: LOOKBACK_CUDA_TRY(cub::DeviceReduce::Max(d_temp, temp_bytes, in, out, n, stream)); break;
    }
  });
}

}  // namespace lookback::typed::detail
