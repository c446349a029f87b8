// Exclusive scan (sum): lookback, CUB and Thrust beside a device memcpy of the same bytes, lookback's
// output checked against CUB's once a row is timed; and the
// deterministic float scan ("scan_deterministic"), whose rows sit beside the default scan's.
#include "support/bench_support.cuh"
#include "typed/compare.hpp"
#include "typed/stream_verify.hpp"
#include "typed/visit.hpp"

#include <lookback/primitives/deterministic_scan.cuh>

#include <thrust/execution_policy.h>
#include <thrust/scan.h>

#include <string>

namespace lookback::bench {
namespace {

/// CUB's scan of the same input, untimed, against ours (within the float tolerance --verify allows).
std::string differs_from_cub(const typed::scan_spec& spec, const void* d_in, const void* d_out, std::int64_t n) {
  void* d_ref = scratch(static_cast<std::size_t>(n) * io::dtype_size(spec.type), 3);
  std::size_t temp_bytes = 0;
  typed::scan(typed::implementation::cub, spec, nullptr, temp_bytes, d_in, d_ref, n, stream());
  typed::scan(typed::implementation::cub, spec, scratch(temp_bytes, 4), temp_bytes, d_in, d_ref, n, stream());
  const std::size_t width = io::dtype_size(spec.type);
  const auto in = typed::detail::fetch(d_in, n, width, stream());
  const auto ref = typed::detail::fetch(d_ref, n, width, stream());
  const auto ours = typed::detail::fetch(d_out, n, width, stream());
  const auto m = typed::first_scan_mismatch(spec, in.data(), ref.data(), ours.data(), n);
  return m ? "element " + std::to_string(m->index) + ": cub " + m->expected + ", lookback " + m->actual : "";
}

void register_typed(typed::implementation impl, io::dtype type, std::int64_t n) {
  register_gpu_benchmark(
      bench_name("scan", std::string(typed::implementation_name(impl)).c_str(), type, n), [=](benchmark::State& state) {
        const typed::scan_spec spec{type, typed::op_kind::sum, false, typed::identity(type, typed::op_kind::sum)};
        const std::size_t bytes = static_cast<std::size_t>(n) * io::dtype_size(type);
        const void* d_in = random_input(type, n);
        void* d_out = scratch(bytes, 0);
        std::size_t temp_bytes = 0;
        typed::scan(impl, spec, nullptr, temp_bytes, d_in, d_out, n, stream());
        void* d_temp = scratch(temp_bytes, 2);
        time_gpu(state, 2.0 * static_cast<double>(bytes), n,
                 [&] { typed::scan(impl, spec, d_temp, temp_bytes, d_in, d_out, n, stream()); });
        if (impl == typed::implementation::lookback)
          fail_on_difference(state, [&] { return differs_from_cub(spec, d_in, d_out, n); });
      });
}

void register_thrust(io::dtype type, std::int64_t n) {
  register_gpu_benchmark(bench_name("scan", "thrust", type, n), [=](benchmark::State& state) {
    typed::visit_numeric(type, [&](auto zero) {
      using T = decltype(zero);
      const T* d_in = static_cast<const T*>(random_input(type, n));
      T* d_out = static_cast<T*>(scratch(static_cast<std::size_t>(n) * sizeof(T), 0));
      time_gpu(state, 2.0 * static_cast<double>(n) * sizeof(T), n,
               [&] { thrust::exclusive_scan(thrust::cuda::par_nosync.on(stream()), d_in, d_in + n, d_out); });
    });
  });
}

void register_deterministic(io::dtype type, std::int64_t n) {
  register_gpu_benchmark(bench_name("scan_deterministic", "lookback", type, n), [=](benchmark::State& state) {
    typed::visit_numeric(type, [&](auto zero) {
      using T = decltype(zero);
      if constexpr (std::is_floating_point_v<T>) {
        const T* d_in = static_cast<const T*>(random_input(type, n));
        T* d_out = static_cast<T*>(scratch(static_cast<std::size_t>(n) * sizeof(T), 0));
        std::size_t temp_bytes = 0;
        exclusive_scan(deterministic, nullptr, temp_bytes, d_in, d_out, T{}, sum{}, n, stream());
        void* d_temp = scratch(temp_bytes, 2);
        time_gpu(state, 2.0 * static_cast<double>(n) * sizeof(T), n,
                 [&] { exclusive_scan(deterministic, d_temp, temp_bytes, d_in, d_out, T{}, sum{}, n, stream()); });
        fail_on_difference(
            state, [&] { return differs_from_deterministic_cpu(d_in, d_out, n, T{}, true); }, "the CPU's association");
      }
    });
  });
}

const bool registered = [] {
  for (const io::dtype type : bench_types)
    for (const std::int64_t n : sizes) {
      register_typed(typed::implementation::lookback, type, n);
      register_typed(typed::implementation::cub, type, n);
      register_thrust(type, n);
      register_memcpy("scan", type, n);
      if (io::is_floating(type)) register_deterministic(type, n);
    }
  return true;
}();

}  // namespace
}  // namespace lookback::bench
