// Routes a run-time implementation choice to the translation unit that instantiates it.
#include "typed/histogram_ops.hpp"
#include "typed/typed_ops.hpp"

namespace lookback::typed {
namespace detail {
void reduce_lookback(io::dtype, op_kind, void*, std::size_t&, const void*, void*, std::int64_t, cudaStream_t);
void reduce_slice_lookback(io::dtype, op_kind, void*, std::size_t&, const void*, void*, std::int64_t, cudaStream_t);
void reduce_cub(io::dtype, op_kind, void*, std::size_t&, const void*, void*, std::int64_t, cudaStream_t);
void scan_lookback(const scan_spec&, void*, std::size_t&, const void*, void*, std::int64_t, cudaStream_t);
void scan_cub(const scan_spec&, void*, std::size_t&, const void*, void*, std::int64_t, cudaStream_t);
void histogram_even_lookback(const histogram_spec&, void*, std::size_t&, const void*, std::int64_t, void*, cudaStream_t);
void histogram_even_cub(const histogram_spec&, void*, std::size_t&, const void*, std::int64_t, void*, cudaStream_t);
}  // namespace detail

void reduce(implementation impl, io::dtype type, op_kind op, void* d_temp, std::size_t& temp_bytes, const void* d_in,
            void* d_out, std::int64_t n, cudaStream_t stream) {
  (impl == implementation::cub ? detail::reduce_cub : detail::reduce_lookback)(type, op, d_temp, temp_bytes, d_in,
                                                                              d_out, n, stream);
}

void reduce_slice(io::dtype type, op_kind op, void* d_temp, std::size_t& temp_bytes, const void* d_in, void* d_out,
                  std::int64_t n, cudaStream_t stream) {
  detail::reduce_slice_lookback(type, op, d_temp, temp_bytes, d_in, d_out, n, stream);
}

void scan(implementation impl, const scan_spec& spec, void* d_temp, std::size_t& temp_bytes, const void* d_in,
          void* d_out, std::int64_t n, cudaStream_t stream) {
  (impl == implementation::cub ? detail::scan_cub : detail::scan_lookback)(spec, d_temp, temp_bytes, d_in, d_out, n,
                                                                          stream);
}

void histogram_even(implementation impl, const histogram_spec& spec, void* d_temp, std::size_t& temp_bytes,
                    const void* d_samples, std::int64_t n, void* d_histogram, cudaStream_t stream) {
  (impl == implementation::cub ? detail::histogram_even_cub : detail::histogram_even_lookback)(
      spec, d_temp, temp_bytes, d_samples, n, d_histogram, stream);
}

}  // namespace lookback::typed
