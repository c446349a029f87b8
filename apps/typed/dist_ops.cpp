// Each typed distributed run on the rank's backend.
#include "typed/dist_ops.hpp"

namespace lookback::typed {

void dist_reduce(const dist_rank& r, io::dtype type, op_kind op, const void* h_in, std::int64_t n, void* h_result) {
  r.gpu ? detail::dist_reduce_gpu(r, type, op, h_in, n, h_result) : detail::dist_reduce_cpu(r, type, op, h_in, n, h_result);
}
void dist_scan(const dist_rank& r, const scan_spec& spec, const void* h_in, void* h_out, std::int64_t n) {
  r.gpu ? detail::dist_scan_gpu(r, spec, h_in, h_out, n) : detail::dist_scan_cpu(r, spec, h_in, h_out, n);
}
void dist_histogram(const dist_rank& r, const histogram_spec& spec, const void* h_samples, std::int64_t n, void* h_counts) {
  r.gpu ? detail::dist_histogram_gpu(r, spec, h_samples, n, h_counts)
        : detail::dist_histogram_cpu(r, spec, h_samples, n, h_counts);
}
dist_kept dist_select(const dist_rank& r, const select_spec& spec, const void* h_values, const std::uint8_t* h_flags,
                      std::int64_t n) {
  return r.gpu ? detail::dist_select_gpu(r, spec, h_values, h_flags, n) : detail::dist_select_cpu(r, spec, h_values, h_flags, n);
}
dist_sorted dist_sort(const dist_rank& r, const sort_spec& spec, const void* h_keys, const void* h_values, std::int64_t n) {
  return r.gpu ? detail::dist_sort_gpu(r, spec, h_keys, h_values, n) : detail::dist_sort_cpu(r, spec, h_keys, h_values, n);
}

}  // namespace lookback::typed
