// Every value dtype of cub::DeviceSelect (If and Flagged), the compaction's reference, compiled once.
#include "typed/select_predicate.hpp"

#include <lookback/primitives/error.cuh>

#include <cub/device/device_select.cuh>

namespace lookback::typed::detail {

void select_cub(const select_spec& spec, void* d_temp, std::size_t& temp_bytes, const void* d_in,
                const std::uint8_t* d_flags, void* d_out, std::int64_t* d_count, std::int64_t n, cudaStream_t stream) {
  visit_numeric(spec.type, [&](auto zero) {
    using T = decltype(zero);
    const auto* in = static_cast<const T*>(d_in);
    auto* out = static_cast<T*>(d_out);
    if (spec.flagged)
      LOOKBACK_CUDA_TRY(cub::DeviceSelect::Flagged(d_temp, temp_bytes, in, d_flags, out, d_count, n, stream));
    else
      LOOKBACK_CUDA_TRY(cub::DeviceSelect::If(d_temp, temp_bytes, in, out, d_count, n, predicate_of<T>(spec), stream));
  });
}

}  // namespace lookback::typed::detail
