// Every (dtype, operator, exclusive/inclusive) instantiation of lookback's scans, compiled once.
#include "typed/visit.hpp"

#include <lookback/primitives/scan.cuh>

namespace lookback::typed::detail {

void scan_lookback(const scan_spec& spec, void* d_temp, std::size_t& temp_bytes, const void* d_in, void* d_out,
                   std::int64_t n, cudaStream_t stream) {
  visit_numeric(spec.type, [&](auto zero) {
    using T = decltype(zero);
    const auto* in = static_cast<const T*>(d_in);
    auto* out = static_cast<T*>(d_out);
    visit_op(spec.op, [&](auto o) {
      if (spec.inclusive)
        lookback::inclusive_scan(d_temp, temp_bytes, in, out, o, n, stream);
      else
        lookback::exclusive_scan(d_temp, temp_bytes, in, out, scalar_as<T>(spec.init), o, n, stream);
    });
  });
}

}  // namespace lookback::typed::detail
