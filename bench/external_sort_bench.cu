// The sort of data larger than its device budget (lookback::pipelines::sort_*): 2^30 keys in pinned
// host memory sorted into pinned host memory under a 512 MiB device budget, beside the bounds it is
// held to, measured in the same run: copying the keys (and values) in and out twice at the pinned
// link's speed, the least an external sort moves, one copy after another and with the two directions
// at once (as the sort overlaps them: the lower bound). Wall-clock time of the whole call (its buffers'
// allocation included), median of 3 after one warm-up; items/s are keys per second.
#include "support/bench_support.cuh"

#include <lookback/pipelines/pinned_buffer.hpp>
#include <lookback/pipelines/sort.cuh>

#include <chrono>
#include <functional>
#include <string>

namespace lookback::bench {
namespace {

constexpr std::int64_t sort_n = std::int64_t{1} << 30;
constexpr std::size_t device_cap = std::size_t{512} << 20;

/// Shared pinned arrays: room for 2^30 uint64 keys in and out, and 2^30 uint32 values in and out.
struct host_arrays {
  pipelines::pinned_buffer keys_in{static_cast<std::size_t>(sort_n) * 8}, keys_out{static_cast<std::size_t>(sort_n) * 8};
  pipelines::pinned_buffer values_in{static_cast<std::size_t>(sort_n) * 4}, values_out{static_cast<std::size_t>(sort_n) * 4};
  host_arrays() {
    auto* k = reinterpret_cast<std::uint64_t*>(keys_in.data());
    auto* v = reinterpret_cast<std::uint32_t*>(values_in.data());
    std::uint64_t x = 0x9E3779B97F4A7C15ull;
    for (std::int64_t i = 0; i < sort_n; ++i) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;  // xorshift64: every bit random
      k[i] = x;
      v[i] = static_cast<std::uint32_t>(i);
    }
  }
};
host_arrays& arrays() {
  static host_arrays a;
  return a;
}

void register_sort(const std::string& name, std::int64_t bytes_moved, std::function<void()> work) {
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    work();
    for (auto _ : state) {
      const auto start = std::chrono::steady_clock::now();
      work();
      state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    state.SetBytesProcessed(bytes_moved * state.iterations());
    state.SetItemsProcessed(sort_n * state.iterations());
  })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond)
      ->Iterations(1)
      ->Repetitions(3)
      ->ReportAggregatesOnly(true);
}

/// The bounds' device buffers, room for 2^30 uint64 keys each way: made by the first bound row, and
/// freed before the whole-GPU sort, which would otherwise run with 16 GiB of the device taken.
struct bound_buffers {
  device_buffer<std::byte> in, out;
};
bound_buffers& bound_space() {
  static bound_buffers b;
  return b;
}
void free_bound_space() {
  bound_space() = {};
  LOOKBACK_CUDA_TRY(cudaStreamSynchronize(stream()));  // the pool gives the memory back at a synchronisation
}

/// The bounds: the items copied in and out twice through device buffers, each copy after the one before
/// (serial), or each round's copy in on one stream while the copy out runs on another (at once).
void register_bound(const std::string& name, std::size_t key_bytes, std::size_t value_bytes, bool at_once) {
  const std::size_t keys = static_cast<std::size_t>(sort_n) * key_bytes, values = static_cast<std::size_t>(sort_n) * value_bytes;
  register_sort(name, static_cast<std::int64_t>(4 * (keys + values)), [=] {
    auto& space = bound_space();
    if (space.in.empty())
      space = {device_buffer<std::byte>(static_cast<std::size_t>(sort_n) * 8, stream()),
               device_buffer<std::byte>(static_cast<std::size_t>(sort_n) * 8, stream())};
    static const cuda_stream out_stream;
    const cudaStream_t out = at_once ? out_stream.get() : stream();
    for (int twice = 0; twice < 2; ++twice) {
      LOOKBACK_CUDA_TRY(cudaMemcpyAsync(space.in.data(), arrays().keys_in.data(), keys, cudaMemcpyHostToDevice, stream()));
      if (values != 0)
        LOOKBACK_CUDA_TRY(cudaMemcpyAsync(space.in.data(), arrays().values_in.data(), values, cudaMemcpyHostToDevice, stream()));
      LOOKBACK_CUDA_TRY(cudaMemcpyAsync(arrays().keys_out.data(), space.out.data(), keys, cudaMemcpyDeviceToHost, out));
      if (values != 0)
        LOOKBACK_CUDA_TRY(cudaMemcpyAsync(arrays().values_out.data(), space.out.data(), values, cudaMemcpyDeviceToHost, out));
    }
    LOOKBACK_CUDA_TRY(cudaStreamSynchronize(stream()));
    LOOKBACK_CUDA_TRY(cudaStreamSynchronize(out));
  });
}

void register_bounds(const std::string& types_n, std::size_t key_bytes, std::size_t value_bytes) {
  register_bound("external_sort_bound/in_out_twice/" + types_n, key_bytes, value_bytes, false);
  register_bound("external_sort_bound/in_out_twice_at_once/" + types_n, key_bytes, value_bytes, true);
}

pipelines::sort_options capped() {
  pipelines::sort_options o;
  o.limits.device_bytes = device_cap;
  return o;
}

const bool registered = [] {
  const std::string n = "/1073741824";
  register_bounds("uint32" + n, 4, 0);
  register_sort("external_sort/keys_512MiB/uint32" + n, std::int64_t{8} * sort_n, [] {
    pipelines::host_source in(arrays().keys_in.data(), sort_n, 4);
    pipelines::host_sink out(arrays().keys_out.data(), 4);
    pipelines::sort_keys<std::uint32_t>(in, out, capped());
  });
  register_bounds("uint32_uint32" + n, 4, 4);
  register_sort("external_sort/pairs_512MiB/uint32_uint32" + n, std::int64_t{16} * sort_n, [] {
    pipelines::host_source k(arrays().keys_in.data(), sort_n, 4), v(arrays().values_in.data(), sort_n, 4);
    pipelines::host_sink ko(arrays().keys_out.data(), 4), vo(arrays().values_out.data(), 4);
    pipelines::sort_pairs<std::uint32_t, std::uint32_t>(k, v, ko, vo, capped());
  });
  register_bounds("uint64" + n, 8, 0);
  register_sort("external_sort/keys_512MiB/uint64" + n, std::int64_t{16} * sort_n, [] {
    pipelines::host_source in(arrays().keys_in.data(), sort_n, 8);
    pipelines::host_sink out(arrays().keys_out.data(), 8);
    pipelines::sort_keys<std::uint64_t>(in, out, capped());
  });
  // The same keys with the whole GPU: one in-core sort, copies in and out once.
  register_sort("external_sort/keys_whole_gpu/uint32" + n, std::int64_t{8} * sort_n, [] {
    free_bound_space();
    pipelines::host_source in(arrays().keys_in.data(), sort_n, 4);
    pipelines::host_sink out(arrays().keys_out.data(), 4);
    pipelines::sort_keys<std::uint32_t>(in, out);
  });
  return true;
}();

}  // namespace
}  // namespace lookback::bench
