// Routes a run-time implementation choice to the translation unit that instantiates it.
#include "typed/typed_ops.hpp"

namespace lookback::typed {
namespace detail {
void reduce_lookback(io::dtype, op_kind, void*, std::size_t&, const void*, void*, std::int64_t, cudaStream_t);
void reduce_cub(io::dtype, op_kind, void*, std::size_t&, const void*, void*, std::int64_t, cudaStream_t);
void scan_lookback(const scan_spec&, void*, std::size_t&, const void*, void*, std::int64_t, cudaStream_t);
void scan_cub(const scan_spec&, void*, std::size_t&, const void*, void*, std::int64_t, cudaStream_t);
}  // namespace detail

void reduce(implementation impl, io::dtype type, op_kind op, void* d_temp, std::size_t& temp_bytes, const void* d_in,
            void* d_out, std::int64_t n, cudaStream_t stream) {
  (impl == implementation::cub ? detail::reduce_cub : detail::reduce_lookback)(type, op, d_temp, temp_bytes, d_in,
                                                                              d_out, n, stream);
}

void scan(implementation impl, const scan_spec& spec, void* d_temp, std::size_t& temp_bytes, const void* d_in,
          void* d_out, std::int64_t n, cudaStream_t stream) {
  (impl == implementation::cub ? detail::scan_cub : detail::scan_lookback)(spec, d_temp, temp_bytes, d_in, d_out, n,
                                                                          stream);
}

}  // namespace lookback::typed
