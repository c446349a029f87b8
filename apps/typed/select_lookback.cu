// Every value dtype of lookback's compaction (by comparison and by flags), compiled once.
#include "typed/select_predicate.hpp"

#include <lookback/algorithms/select.cuh>

namespace lookback::typed::detail {

void select_lookback(const select_spec& spec, void* d_temp, std::size_t& temp_bytes, const void* d_in,
                     const std::uint8_t* d_flags, void* d_out, std::int64_t* d_count, std::int64_t n,
                     cudaStream_t stream) {
  visit_numeric(spec.type, [&](auto zero) {
    using T = decltype(zero);
    const auto* in = static_cast<const T*>(d_in);
    auto* out = static_cast<T*>(d_out);
    if (spec.flagged)
      lookback::select_flagged(d_temp, temp_bytes, in, d_flags, out, d_count, n, stream);
    else
      lookback::select_if(d_temp, temp_bytes, in, out, d_count, n, predicate_of<T>(spec), stream);
  });
}

}  // namespace lookback::typed::detail
