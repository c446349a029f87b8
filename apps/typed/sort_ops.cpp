#include "typed/sort_ops.hpp"

#include "typed/compare.hpp"
#include "typed/sort_visit.hpp"

#include <cstring>

namespace lookback::typed {
namespace detail {
void sort_lookback(const sort_spec& spec, void* d_temp, std::size_t& temp_bytes, const void* d_keys_in,
                   void* d_keys_out, const void* d_values_in, void* d_values_out, std::int64_t n, cudaStream_t stream);
void sort_cub(const sort_spec& spec, void* d_temp, std::size_t& temp_bytes, const void* d_keys_in, void* d_keys_out,
              const void* d_values_in, void* d_values_out, std::int64_t n, cudaStream_t stream);
}  // namespace detail

std::string format_key(io::dtype key, const void* value) {
  return visit_sort_key(key, [&](auto zero) {
    decltype(zero) k;
    std::memcpy(&k, value, sizeof k);
    return format_value(k);
  });
}

void sort(implementation impl, const sort_spec& spec, void* d_temp, std::size_t& temp_bytes, const void* d_keys_in,
          void* d_keys_out, const void* d_values_in, void* d_values_out, std::int64_t n, cudaStream_t stream) {
  check_sort_spec(spec);
  (impl == implementation::cub ? detail::sort_cub : detail::sort_lookback)(spec, d_temp, temp_bytes, d_keys_in, d_keys_out,
                                                                          d_values_in, d_values_out, n, stream);
}

}  // namespace lookback::typed
