// Radix sort of keys over all their bits: lookback beside cub::DeviceRadixSort, thrust::sort (or
// sort_by_key) and a device memcpy of the keys (of the keys alone for pairs too), for uint32 keys,
// uint32/uint32 pairs and uint64 keys at 2^16 to 2^28 (uint64 to 2^27, the size the issue's CUB time
// was taken at); float32 and int32 keys, uint32/uint64 and uint64/uint64 pairs beside CUB at 2^24 and
// 2^28 (2^27 for 8-byte keys); uint32 keys descending and over bits [8, 24) beside CUB's at 2^24 and
// 2^28. Each lookback row's keys and values are checked against CUB's once it is timed.
#include "support/bench_support.cuh"

#include <lookback/algorithms/radix_sort.cuh>

#include <cub/device/device_radix_sort.cuh>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

namespace lookback::bench {
namespace {

enum class impl { lookback, cub, thrust };
const char* impl_name(impl i) { return i == impl::lookback ? "lookback" : i == impl::cub ? "cub" : "thrust"; }

/// Which keys' bits are sorted, and in which direction: the full width ascending unless told.
struct sort_bits {
  bool descending = false;
  int begin_bit = 0;
  int end_bit = 0;  // 0: the key's width
};

template <class Key, class Value>
void register_case(const char* op, impl which, std::int64_t n, sort_bits bits = {}) {
  constexpr bool pairs = !std::is_same_v<Value, void>;
  using value_t = std::conditional_t<pairs, Value, std::uint32_t>;
  const io::dtype type = io::dtype_of<Key>();
  register_gpu_benchmark(bench_name(op, impl_name(which), type, n), [=](benchmark::State& state) {
    const auto* d_keys_in = static_cast<const Key*>(random_input(type, n, spread::all_bits));
    const std::size_t key_bytes = static_cast<std::size_t>(n) * sizeof(Key);
    const std::size_t value_bytes = pairs ? static_cast<std::size_t>(n) * sizeof(value_t) : 0;
    auto* d_keys_out = static_cast<Key*>(scratch(key_bytes, 0));
    const auto* d_values_in =
        static_cast<const value_t*>(pairs ? random_input(io::dtype_of<value_t>(), n, spread::all_bits, 1) : nullptr);
    auto* d_values_out = static_cast<value_t*>(pairs ? scratch(value_bytes, 1) : nullptr);
    // Keys and values read and written once: what a single pass would move.
    const double bytes = 2.0 * static_cast<double>(key_bytes + value_bytes);
    if (which == impl::thrust) {
      auto* d_keys = static_cast<Key*>(scratch(key_bytes, 3));
      auto* d_values = static_cast<value_t*>(pairs ? scratch(value_bytes, 4) : nullptr);
      // Thrust sorts in place: each run sorts a fresh copy, and the copy is timed with it.
      time_gpu(state, bytes, n, [&] {
        LOOKBACK_CUDA_TRY(cudaMemcpyAsync(d_keys, d_keys_in, key_bytes, cudaMemcpyDeviceToDevice, stream()));
        if constexpr (pairs) {
          LOOKBACK_CUDA_TRY(cudaMemcpyAsync(d_values, d_values_in, value_bytes, cudaMemcpyDeviceToDevice, stream()));
          thrust::sort_by_key(thrust::cuda::par_nosync.on(stream()), d_keys, d_keys + n, d_values);
        } else {
          thrust::sort(thrust::cuda::par_nosync.on(stream()), d_keys, d_keys + n);
        }
      });
      return;
    }
    const int begin = bits.begin_bit;
    const int end = bits.end_bit != 0 ? bits.end_bit : 8 * static_cast<int>(sizeof(Key));
    auto call = [&](impl who, void* d_temp, std::size_t& temp_bytes, Key* keys_out, value_t* values_out) {
      if (who == impl::lookback) {
        if constexpr (pairs)
          radix_sort_pairs(d_temp, temp_bytes, d_keys_in, keys_out, d_values_in, values_out, n, begin, end, stream());
        else if (bits.descending)
          radix_sort_keys_descending(d_temp, temp_bytes, d_keys_in, keys_out, n, begin, end, stream());
        else
          radix_sort_keys(d_temp, temp_bytes, d_keys_in, keys_out, n, begin, end, stream());
      } else {
        if constexpr (pairs)
          LOOKBACK_CUDA_TRY(cub::DeviceRadixSort::SortPairs(d_temp, temp_bytes, d_keys_in, keys_out, d_values_in,
                                                            values_out, static_cast<int>(n), begin, end, stream()));
        else if (bits.descending)
          LOOKBACK_CUDA_TRY(cub::DeviceRadixSort::SortKeysDescending(d_temp, temp_bytes, d_keys_in, keys_out,
                                                                     static_cast<int>(n), begin, end, stream()));
        else
          LOOKBACK_CUDA_TRY(cub::DeviceRadixSort::SortKeys(d_temp, temp_bytes, d_keys_in, keys_out,
                                                           static_cast<int>(n), begin, end, stream()));
      }
    };
    std::size_t temp_bytes = 0;
    call(which, nullptr, temp_bytes, d_keys_out, d_values_out);
    void* d_temp = scratch(temp_bytes, 2);
    time_gpu(state, bytes, n, [&] { call(which, d_temp, temp_bytes, d_keys_out, d_values_out); });
    if (which != impl::lookback) return;
    // CUB's sort of the same keys, untimed: the order must be exactly its.
    fail_on_difference(state, [&]() -> std::string {
      auto* ref_keys = static_cast<Key*>(scratch(key_bytes, 3));
      auto* ref_values = static_cast<value_t*>(pairs ? scratch(value_bytes, 4) : nullptr);
      std::size_t ref_temp = 0;
      call(impl::cub, nullptr, ref_temp, ref_keys, ref_values);
      call(impl::cub, scratch(ref_temp, 5), ref_temp, ref_keys, ref_values);
      if (!same_device_bytes(d_keys_out, ref_keys, key_bytes)) return "the sorted keys";
      if (pairs && !same_device_bytes(d_values_out, ref_values, value_bytes)) return "the values moved with the keys";
      return {};
    });
  });
}

template <class Key, class Value>
void register_op(const char* op, std::int64_t max_n) {
  for (const std::int64_t n : {std::int64_t{1} << 16, std::int64_t{1} << 20, std::int64_t{1} << 24, max_n}) {
    for (const impl which : {impl::lookback, impl::cub, impl::thrust}) register_case<Key, Value>(op, which, n);
    register_memcpy(op, sizeof(Key) == 4 ? io::dtype::uint32 : io::dtype::uint64, n);
  }
}

const bool registered = [] {
  register_op<std::uint32_t, void>("sort_keys", std::int64_t{1} << 28);
  register_op<std::uint32_t, std::uint32_t>("sort_pairs", std::int64_t{1} << 28);
  register_op<std::uint64_t, void>("sort_keys", std::int64_t{1} << 27);
  // The other key types and value widths at 2^24 and the issue's largest size, beside CUB: float32
  // keys in [0, 1), int32 keys over every bit, uint32 keys with uint64 values, uint64/uint64 pairs.
  for (const impl which : {impl::lookback, impl::cub})
    for (const int log_n : {24, 28}) {
      const std::int64_t n = std::int64_t{1} << log_n;
      register_case<float, void>("sort_keys", which, n);
      register_case<std::int32_t, void>("sort_keys", which, n);
      register_case<std::uint32_t, std::uint64_t>("sort_pairs_u64_values", which, n);
      register_case<std::uint64_t, std::uint64_t>("sort_pairs", which, log_n == 28 ? n / 2 : n);
    }
  // Descending and a 16-bit range (two passes) beside the ascending full-width rows above.
  for (const std::int64_t n : {std::int64_t{1} << 24, std::int64_t{1} << 28})
    for (const impl which : {impl::lookback, impl::cub}) {
      register_case<std::uint32_t, void>("sort_keys_descending", which, n, {true, 0, 32});
      register_case<std::uint32_t, void>("sort_keys_bits_8_24", which, n, {false, 8, 24});
    }
  return true;
}();

}  // namespace
}  // namespace lookback::bench
