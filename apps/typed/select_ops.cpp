// The typed compaction's GPU dispatch (ours or CUB's, instantiated in select_lookback.cu and
// select_cub.cu); the host side is in select_host.cpp.
#include "typed/select_ops.hpp"

namespace lookback::typed {
namespace detail {
void select_lookback(const select_spec& spec, void* d_temp, std::size_t& temp_bytes, const void* d_in,
                     const std::uint8_t* d_flags, void* d_out, std::int64_t* d_count, std::int64_t n,
                     cudaStream_t stream);
void select_cub(const select_spec& spec, void* d_temp, std::size_t& temp_bytes, const void* d_in,
                const std::uint8_t* d_flags, void* d_out, std::int64_t* d_count, std::int64_t n, cudaStream_t stream);
}  // namespace detail

void select(implementation impl, const select_spec& spec, void* d_temp, std::size_t& temp_bytes, const void* d_in,
            const std::uint8_t* d_flags, void* d_out, std::int64_t* d_count, std::int64_t n, cudaStream_t stream) {
  if (impl == implementation::lookback)
    detail::select_lookback(spec, d_temp, temp_bytes, d_in, d_flags, d_out, d_count, n, stream);
  else
    detail::select_cub(spec, d_temp, temp_bytes, d_in, d_flags, d_out, d_count, n, stream);
}

}  // namespace lookback::typed
