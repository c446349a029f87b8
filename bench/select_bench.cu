// Stream compaction of uint32 and uint64 values in [0, 1000): lookback's select_if and select_flagged
// beside cub::DeviceSelect::If / Flagged, thrust::copy_if (uint32) and a device memcpy of the input,
// with 1%, 50% and 99% of the items kept (by value < threshold, or by uint8 flags drawn the same way);
// partition beside cub::DevicePartition::If. Each lookback row's output is checked against CUB's once
// it is timed.
#include "support/bench_support.cuh"
#include "typed/select_predicate.hpp"
#include "typed/stream_verify.hpp"

#include <lookback/algorithms/select.cuh>

#include <cub/device/device_partition.cuh>

#include <thrust/copy.h>
#include <thrust/execution_policy.h>

#include <cstring>
#include <optional>
#include <string>

namespace lookback::bench {
namespace {

struct nonzero_flag {
  __device__ bool operator()(std::uint8_t f) const { return f != 0; }
};

enum class impl { lookback, cub, thrust };
const char* impl_name(impl i) { return i == impl::lookback ? "lookback" : i == impl::cub ? "cub" : "thrust"; }

/// "" when ours and CUB's kept the same count and wrote the same items (the kept ones, or all n for a
/// partition), else what differs.
template <class T>
std::string same_kept(const T* d_out, const std::int64_t* d_count, const T* d_ref, const std::int64_t* d_ref_count,
                      std::optional<std::int64_t> all_items = std::nullopt) {
  if (!same_device_bytes(d_count, d_ref_count, sizeof(std::int64_t))) return "the count kept";
  std::int64_t items = 0;
  std::memcpy(&items, typed::detail::fetch(d_count, 1, sizeof items, stream()).data(), sizeof items);
  items = all_items.value_or(items);
  return same_device_bytes(d_out, d_ref, static_cast<std::size_t>(items) * sizeof(T)) ? "" : "the items written";
}

template <class T>
void register_case(bool flagged, int percent, impl which, std::int64_t n) {
  constexpr io::dtype type = io::dtype_of<T>();
  const std::string op = std::string(flagged ? "select_flagged_" : "select_if_") + std::to_string(percent) + "pct";
  register_gpu_benchmark(bench_name(op.c_str(), impl_name(which), type, n), [=](benchmark::State& state) {
    const auto* d_in = static_cast<const T*>(random_input(type, n));
    const auto threshold = static_cast<T>(percent * 10);
    auto* d_out = static_cast<T*>(scratch(static_cast<std::size_t>(n) * sizeof(T), 0));
    auto* d_count = static_cast<std::int64_t*>(scratch(sizeof(std::int64_t), 1));
    const std::uint8_t* d_flags =
        flagged ? flags_below(d_in, n, threshold, 3) : static_cast<std::uint8_t*>(scratch(1, 3));
    typed::select_spec spec{type, flagged, typed::compare_kind::lt, {}};
    spec.value = *typed::parse_scalar(type, std::to_string(threshold));
    // Bytes moved: the values (and flags) read, the kept values written.
    const double kept = static_cast<double>(n) * percent / 100.0;
    const double bytes = static_cast<double>(n) * (sizeof(T) + (flagged ? 1.0 : 0.0)) + kept * sizeof(T);
    if constexpr (std::is_same_v<T, std::uint32_t>) {
      if (which == impl::thrust) {
        const auto pred = typed::predicate_of<T>(spec);
        time_gpu(state, bytes, n, [&] {
          if (flagged)
            thrust::copy_if(thrust::cuda::par_nosync.on(stream()), d_in, d_in + n, d_flags, d_out, nonzero_flag{});
          else
            thrust::copy_if(thrust::cuda::par_nosync.on(stream()), d_in, d_in + n, d_out, pred);
        });
        return;
      }
    }
    const auto kind = which == impl::lookback ? typed::implementation::lookback : typed::implementation::cub;
    std::size_t temp_bytes = 0;
    typed::select(kind, spec, nullptr, temp_bytes, d_in, d_flags, d_out, d_count, n, stream());
    void* d_temp = scratch(temp_bytes, 2);
    time_gpu(state, bytes, n,
             [&] { typed::select(kind, spec, d_temp, temp_bytes, d_in, d_flags, d_out, d_count, n, stream()); });
    if (which != impl::lookback) return;
    // CUB's compaction of the same items, untimed: the same count, the same items in the same order.
    fail_on_difference(state, [&] {
      auto* ref_out = static_cast<T*>(scratch(static_cast<std::size_t>(n) * sizeof(T), 4));
      auto* ref_count = static_cast<std::int64_t*>(scratch(sizeof(std::int64_t), 5));
      std::size_t ref_temp = 0;
      typed::select(typed::implementation::cub, spec, nullptr, ref_temp, d_in, d_flags, ref_out, ref_count, n, stream());
      typed::select(typed::implementation::cub, spec, scratch(ref_temp, 6), ref_temp, d_in, d_flags, ref_out, ref_count,
                    n, stream());
      return same_kept(d_out, d_count, ref_out, ref_count);
    });
  });
}

/// Every item written: the kept ones first, the others from the end backwards.
template <class T>
void register_partition(int percent, impl which, std::int64_t n) {
  constexpr io::dtype type = io::dtype_of<T>();
  const std::string op = "partition_" + std::to_string(percent) + "pct";
  register_gpu_benchmark(bench_name(op.c_str(), impl_name(which), type, n), [=](benchmark::State& state) {
    const auto* d_in = static_cast<const T*>(random_input(type, n));
    auto* d_out = static_cast<T*>(scratch(static_cast<std::size_t>(n) * sizeof(T), 0));
    auto* d_count = static_cast<std::int64_t*>(scratch(sizeof(std::int64_t), 1));
    typed::select_spec spec{type, false, typed::compare_kind::lt, {}};
    spec.value = *typed::parse_scalar(type, std::to_string(percent * 10));
    const auto pred = typed::predicate_of<T>(spec);
    const auto call = [&](impl who, void* d_temp, std::size_t& temp_bytes, T* out, std::int64_t* count) {
      if (who == impl::lookback)
        partition(d_temp, temp_bytes, d_in, out, count, n, pred, stream());
      else
        LOOKBACK_CUDA_TRY(
            cub::DevicePartition::If(d_temp, temp_bytes, d_in, out, count, static_cast<int>(n), pred, stream()));
    };
    std::size_t temp_bytes = 0;
    call(which, nullptr, temp_bytes, d_out, d_count);
    void* d_temp = scratch(temp_bytes, 2);
    time_gpu(state, 2.0 * sizeof(T) * static_cast<double>(n), n, [&] { call(which, d_temp, temp_bytes, d_out, d_count); });
    if (which != impl::lookback) return;
    // CUB's partition, untimed: the same count and every item where CUB puts it.
    fail_on_difference(state, [&] {
      auto* ref_out = static_cast<T*>(scratch(static_cast<std::size_t>(n) * sizeof(T), 4));
      auto* ref_count = static_cast<std::int64_t*>(scratch(sizeof(std::int64_t), 5));
      std::size_t ref_temp = 0;
      call(impl::cub, nullptr, ref_temp, ref_out, ref_count);
      call(impl::cub, scratch(ref_temp, 6), ref_temp, ref_out, ref_count);
      return same_kept(d_out, d_count, ref_out, ref_count, n);
    });
  });
}

/// Every fraction and size of one item type: partition, then select_if and select_flagged (Thrust's
/// copy_if beside for uint32 only: its 8-byte instantiation would cost the build more than it tells).
template <class T>
void register_type() {
  constexpr io::dtype type = io::dtype_of<T>();
  const std::int64_t sizes[] = {std::int64_t{1} << 16, std::int64_t{1} << 20, std::int64_t{1} << 24, std::int64_t{1} << 28};
  for (const int percent : {1, 50, 99})
    for (const std::int64_t n : sizes) {
      for (const impl which : {impl::lookback, impl::cub}) register_partition<T>(percent, which, n);
      register_memcpy(("partition_" + std::to_string(percent) + "pct").c_str(), type, n);
    }
  for (const bool flagged : {false, true})
    for (const int percent : {1, 50, 99})
      for (const std::int64_t n : sizes) {
        for (const impl which : {impl::lookback, impl::cub, impl::thrust})
          if (which != impl::thrust || std::is_same_v<T, std::uint32_t>) register_case<T>(flagged, percent, which, n);
        const std::string op = std::string(flagged ? "select_flagged_" : "select_if_") + std::to_string(percent) + "pct";
        register_memcpy(op.c_str(), type, n);
      }
}

const bool registered = [] {
  register_type<std::uint32_t>();
  register_type<std::uint64_t>();
  return true;
}();

}  // namespace
}  // namespace lookback::bench
