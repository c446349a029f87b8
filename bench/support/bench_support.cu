#include "support/bench_support.cuh"

#include "typed/compare.hpp"
#include "typed/stream_verify.hpp"
#include "typed/visit.hpp"

#include <lookback/primitives/cpu/deterministic_scan.hpp>
#include <lookback/primitives/operators.cuh>

#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <tuple>
#include <type_traits>
#include <vector>

namespace lookback::bench {
namespace {

__host__ __device__ std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

template <class T>
__global__ void fill_random(T* d, std::int64_t n, std::uint64_t seed, bool all_bits) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::uint64_t r = mix(seed ^ mix(static_cast<std::uint64_t>(i)));
    if constexpr (std::is_floating_point_v<T>)
      d[i] = static_cast<T>(r >> 11) * static_cast<T>(1.0 / 9007199254740992.0);
    else
      d[i] = static_cast<T>(all_bits ? r : r % 1000);
  }
}

struct input_key {
  io::dtype type;
  std::int64_t n;
  spread how;
  int draw;
  bool operator<(const input_key& o) const {
    return std::tie(type, n, how, draw) < std::tie(o.type, o.n, o.how, o.draw);
  }
};

}  // namespace

cudaStream_t stream() {
  static const cuda_stream s;
  return s.get();
}

namespace {
/// Fresh each run unless LOOKBACK_BENCH_SEED repeats one; said once, so that a surprising row can be
/// timed again on the same inputs.
std::uint64_t input_seed() {
  static const std::uint64_t seed = [] {
    const char* fixed = std::getenv("LOOKBACK_BENCH_SEED");
    const std::uint64_t s = fixed != nullptr && *fixed != '\0'
                                ? std::strtoull(fixed, nullptr, 0)
                                : (std::uint64_t{std::random_device{}()} << 32) | std::random_device{}();
    std::fprintf(stderr, "lookback_bench: inputs from seed %llu (LOOKBACK_BENCH_SEED repeats them)\n",
                 static_cast<unsigned long long>(s));
    return s;
  }();
  return seed;
}
}  // namespace

const void* random_input(io::dtype type, std::int64_t n, spread how, int draw) {
  // The stream first: statics die in reverse order, and the buffers free on it.
  (void)stream();
  static std::map<input_key, device_buffer<std::byte>> inputs;
  // Another draw, another sequence: the seed mixed with the draw's number (draw 0 keeps the seed).
  const std::uint64_t seed = draw == 0 ? input_seed() : input_seed() ^ (0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(draw));
  auto it = inputs.find({type, n, how, draw});
  if (it != inputs.end()) return it->second.data();
  device_buffer<std::byte> d(static_cast<std::size_t>(n) * io::dtype_size(type), stream());
  typed::visit_numeric(type, [&](auto zero) {
    using T = decltype(zero);
    fill_random<<<1024, 256, 0, stream()>>>(reinterpret_cast<T*>(d.data()), n, seed, how == spread::all_bits);
    LOOKBACK_CUDA_TRY(cudaGetLastError());
  });
  LOOKBACK_CUDA_TRY(cudaStreamSynchronize(stream()));
  return inputs.emplace(input_key{type, n, how, draw}, std::move(d)).first->second.data();
}

bool same_device_bytes(const void* d_a, const void* d_b, std::size_t bytes) {
  const auto n = static_cast<std::int64_t>(bytes);
  return typed::detail::fetch(d_a, n, 1, stream()) == typed::detail::fetch(d_b, n, 1, stream());
}

template <class T>
std::string differs_from_deterministic_cpu(const T* d_in, const T* d_out, std::int64_t n, T start, bool scan) {
  const auto in = typed::detail::fetch(d_in, n, sizeof(T), stream());
  const auto got = typed::detail::fetch(d_out, scan ? n : 1, sizeof(T), stream());
  std::vector<T> want(scan ? static_cast<std::size_t>(n) : 1);
  const T total = *cpu::deterministic_scan(reinterpret_cast<const T*>(in.data()), scan ? want.data() : nullptr, n, sum{},
                                           std::optional<T>(start), true);
  if (!scan) want[0] = total;
  for (std::size_t i = 0; i < want.size(); ++i) {
    T mine;
    std::memcpy(&mine, got.data() + i * sizeof(T), sizeof(T));
    if (std::memcmp(&mine, &want[i], sizeof(T)) != 0)
      return "item " + std::to_string(i) + ": " + typed::format_value(mine) + " where the CPU's association gives " +
             typed::format_value(want[i]);
  }
  return {};
}
template std::string differs_from_deterministic_cpu(const float*, const float*, std::int64_t, float, bool);
template std::string differs_from_deterministic_cpu(const double*, const double*, std::int64_t, double, bool);

void* scratch(std::size_t bytes, int slot) {
  (void)stream();
  static std::map<int, device_buffer<std::byte>> buffers;
  auto& b = buffers[slot];
  if (b.size() < bytes) b = device_buffer<std::byte>(bytes, stream());
  return b.data();
}

namespace {
template <class T>
__global__ void flag_values_below(const T* d_values, std::int64_t n, T threshold, std::uint8_t* d_flags) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x)
    d_flags[i] = d_values[i] < threshold ? 1 : 0;
}
}  // namespace

template <class T>
const std::uint8_t* flags_below(const T* d_values, std::int64_t n, T threshold, int slot) {
  auto* d_flags = static_cast<std::uint8_t*>(scratch(static_cast<std::size_t>(n), slot));
  flag_values_below<<<1024, 256, 0, stream()>>>(d_values, n, threshold, d_flags);
  LOOKBACK_CUDA_TRY(cudaGetLastError());
  return d_flags;
}
template const std::uint8_t* flags_below(const std::uint32_t*, std::int64_t, std::uint32_t, int);
template const std::uint8_t* flags_below(const std::uint64_t*, std::int64_t, std::uint64_t, int);

std::string bench_name(const char* op, const char* impl, io::dtype type, std::int64_t n) {
  return std::string(op) + "/" + impl + "/" + std::string(io::dtype_name(type)) + "/" + std::to_string(n);
}

void register_memcpy(const char* op, io::dtype type, std::int64_t n) {
  register_gpu_benchmark(bench_name(op, "memcpy", type, n), [type, n](benchmark::State& state) {
    const std::size_t bytes = static_cast<std::size_t>(n) * io::dtype_size(type);
    const void* d_in = random_input(type, n);
    void* d_out = scratch(bytes, 0);
    time_gpu(state, 2.0 * static_cast<double>(bytes), n, [&] {
      LOOKBACK_CUDA_TRY(cudaMemcpyAsync(d_out, d_in, bytes, cudaMemcpyDeviceToDevice, stream()));
    });
  });
}

}  // namespace lookback::bench
