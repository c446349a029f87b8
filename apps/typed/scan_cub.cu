// Every (dtype, operator, exclusive/inclusive) instantiation of the CUB reference scans, compiled once.
#include "typed/visit.hpp"

#include <lookback/primitives/error.cuh>

#include <cub/device/device_scan.cuh>

#include <cmath>

namespace lookback::typed::detail {

void scan_cub(const scan_spec& spec, void* d_temp, std::size_t& temp_bytes, const void* d_in, void* d_out,
              std::int64_t n, cudaStream_t stream) {
  visit_numeric(spec.type, [&](auto zero) {
    using T = decltype(zero);
    const auto* in = static_cast<const T*>(d_in);
    auto* out = static_cast<T*>(d_out);
    if (spec.op == op_kind::sum) {
      // CUB's own sum entry points, which its tuning targets. ExclusiveSum starts from +0.0; a -0.0
      // initial value goes to ExclusiveScan, which keeps it.
      const T init = scalar_as<T>(spec.init);
      if (spec.inclusive)
        LOOKBACK_CUDA_TRY(cub::DeviceScan::InclusiveSum(d_temp, temp_bytes, in, out, n, stream));
      else if (init == T(0) && !std::signbit(static_cast<double>(init)))
        LOOKBACK_CUDA_TRY(cub::DeviceScan::ExclusiveSum(d_temp, temp_bytes, in, out, n, stream));
      else
        LOOKBACK_CUDA_TRY(cub::DeviceScan::ExclusiveScan(d_temp, temp_bytes, in, out, lookback::sum{}, init, n, stream));
      return;
    }
    visit_op(spec.op, [&](auto o) {
      if (spec.inclusive)
        LOOKBACK_CUDA_TRY(cub::DeviceScan::InclusiveScan(d_temp, temp_bytes, in, out, o, n, stream));
      else
        LOOKBACK_CUDA_TRY(cub::DeviceScan::ExclusiveScan(d_temp, temp_bytes, in, out, o, scalar_as<T>(spec.init), n, stream));
    });
  });
}

}  // namespace lookback::typed::detail
