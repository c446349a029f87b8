// Reduction (sum): lookback, CUB and Thrust beside a device memcpy of the same bytes; and the
// deterministic float reduction ("reduce_deterministic"), whose rows sit beside the default one's.
#include "support/bench_support.cuh"
#include "typed/visit.hpp"

#include <lookback/primitives/deterministic_scan.cuh>

#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

namespace lookback::bench {
namespace {

void register_typed(typed::implementation impl, io::dtype type, std::int64_t n) {
  register_gpu_benchmark(bench_name("reduce", std::string(typed::implementation_name(impl)).c_str(), type, n),
                         [=](benchmark::State& state) {
                           const void* d_in = random_input(type, n);
                           void* d_out = scratch(8, 1);
                           std::size_t temp_bytes = 0;
                           typed::reduce(impl, type, typed::op_kind::sum, nullptr, temp_bytes, d_in, d_out, n, stream());
                           void* d_temp = scratch(temp_bytes, 2);
                           const double bytes = static_cast<double>(n) * io::dtype_size(type);
                           time_gpu(state, bytes, n, [&] {
                             typed::reduce(impl, type, typed::op_kind::sum, d_temp, temp_bytes, d_in, d_out, n, stream());
                           });
                         });
}

void register_thrust(io::dtype type, std::int64_t n) {
  register_gpu_benchmark(bench_name("reduce", "thrust", type, n), [=](benchmark::State& state) {
    typed::visit_numeric(type, [&](auto zero) {
      using T = decltype(zero);
      const T* d_in = static_cast<const T*>(random_input(type, n));
      // thrust::reduce returns the value to the host, so its time includes that copy and sync.
      time_gpu(state, static_cast<double>(n) * sizeof(T), n,
               [&] { benchmark::DoNotOptimize(thrust::reduce(thrust::cuda::par.on(stream()), d_in, d_in + n)); });
    });
  });
}

void register_deterministic(io::dtype type, std::int64_t n) {
  register_gpu_benchmark(bench_name("reduce_deterministic", "lookback", type, n), [=](benchmark::State& state) {
    typed::visit_numeric(type, [&](auto zero) {
      using T = decltype(zero);
      if constexpr (std::is_floating_point_v<T>) {
        const T* d_in = static_cast<const T*>(random_input(type, n));
        T* d_out = static_cast<T*>(scratch(sizeof(T), 1));
        std::size_t temp_bytes = 0;
        reduce(deterministic, nullptr, temp_bytes, d_in, d_out, n, sum{}, T{}, stream());
        void* d_temp = scratch(temp_bytes, 2);
        time_gpu(state, static_cast<double>(n) * sizeof(T), n,
                 [&] { reduce(deterministic, d_temp, temp_bytes, d_in, d_out, n, sum{}, T{}, stream()); });
        fail_on_difference(
            state, [&] { return differs_from_deterministic_cpu(d_in, d_out, n, T{}, false); }, "the CPU's association");
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
      register_memcpy("reduce", type, n);
      if (io::is_floating(type)) register_deterministic(type, n);
    }
  return true;
}();

}  // namespace
}  // namespace lookback::bench
