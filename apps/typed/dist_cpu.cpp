// The typed distributed runs on the CPU backend (lookback::dist::host_backend).
#include "typed/dist_run.hpp"

#include <lookback/distributed/host_backend.hpp>

namespace lookback::typed::detail {

void dist_reduce_cpu(const dist_rank& r, io::dtype type, op_kind op, const void* h_in, std::int64_t n, void* h_result) {
  dist::host_backend backend;
  reduce_on(backend, r.comm, type, op, h_in, n, h_result);
}
void dist_scan_cpu(const dist_rank& r, const scan_spec& spec, const void* h_in, void* h_out, std::int64_t n) {
  dist::host_backend backend;
  scan_on(backend, r.comm, spec, h_in, h_out, n);
}
void dist_histogram_cpu(const dist_rank& r, const histogram_spec& spec, const void* h_samples, std::int64_t n,
                        void* h_counts) {
  dist::host_backend backend;
  histogram_on(backend, r.comm, spec, h_samples, n, h_counts);
}
dist_kept dist_select_cpu(const dist_rank& r, const select_spec& spec, const void* h_values, const std::uint8_t* h_flags,
                          std::int64_t n) {
  dist::host_backend backend;
  return select_on(backend, r.comm, spec, h_values, h_flags, n);
}
dist_sorted dist_sort_cpu(const dist_rank& r, const sort_spec& spec, const void* h_keys, const void* h_values,
                          std::int64_t n) {
  dist::host_backend backend;
  return sort_on(backend, r.comm, spec, h_keys, h_values, n);
}

}  // namespace lookback::typed::detail
