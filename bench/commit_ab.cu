// The public sort and scan, timed the same way against the headers of whichever tree it is built
// with (scripts/commit-ab builds it once per commit). A flag inside one tree compares only what the
// flag switches; trees built whole compare everything that differs between them.
//
// Prints "TAG op type n ms" lines: 3 calls first, then the median of 15 timed as the benchmarks time
// them (typed::event_timer: CUDA events, the stream held while a call is submitted, so the GPU's time).
// The timing comes from the tree that builds the tool, the library from the tree measured.
#include <lookback/algorithms/radix_sort.cuh>
#include <lookback/primitives/error.cuh>
#include <lookback/primitives/scan.cuh>

#include "typed/gpu_timing.hpp"

#include <cstdint>
#include <cstdio>
#include <exception>
#include <random>
#include <string>
#include <vector>

namespace {

template <class T>
T* device_random(std::int64_t n, unsigned seed) {
  std::vector<T> h(static_cast<std::size_t>(n));
  std::mt19937_64 rng(seed);
  for (T& x : h) x = static_cast<T>(rng());
  T* d = nullptr;
  LOOKBACK_CUDA_TRY(cudaMalloc(&d, n * sizeof(T)));
  LOOKBACK_CUDA_TRY(cudaMemcpy(d, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <class T>
T* device_buffer(std::int64_t n) {
  T* d = nullptr;
  LOOKBACK_CUDA_TRY(cudaMalloc(&d, n * sizeof(T)));
  return d;
}

/// `call(d_temp, bytes)` sizes its temporary storage when d_temp is null, as every public call does.
template <class Call>
void time_call(const char* tag, const char* op, const char* type, int log_n, Call call) {
  std::size_t bytes = 0;
  call(nullptr, bytes);
  void* d_temp = nullptr;
  LOOKBACK_CUDA_TRY(cudaMalloc(&d_temp, bytes > 0 ? bytes : 1));
  // The library checks its own launches.
  const float ms = lookback::typed::median_time_ms(nullptr, [&] { call(d_temp, bytes); }, 3, 15);
  std::printf("%s %s %s 2^%d %.4f\n", tag, op, type, log_n, ms);
  std::fflush(stdout);
  LOOKBACK_CUDA_TRY(cudaFree(d_temp));
}

template <class Key>
void sorts(const char* tag, const char* type, int log_n) {
  const std::int64_t n = std::int64_t{1} << log_n;
  Key* d_keys = device_random<Key>(n, static_cast<unsigned>(log_n));
  Key* d_keys_out = device_buffer<Key>(n);
  time_call(tag, "sort_keys", type, log_n, [&](void* d_temp, std::size_t& bytes) {
    lookback::radix_sort_keys(d_temp, bytes, d_keys, d_keys_out, n);
  });
  if (sizeof(Key) == 4) {
    auto* d_values = device_random<std::uint32_t>(n, 7u + static_cast<unsigned>(log_n));
    auto* d_values_out = device_buffer<std::uint32_t>(n);
    time_call(tag, "sort_pairs", type, log_n, [&](void* d_temp, std::size_t& bytes) {
      lookback::radix_sort_pairs(d_temp, bytes, d_keys, d_keys_out, d_values, d_values_out, n);
    });
    LOOKBACK_CUDA_TRY(cudaFree(d_values));
    LOOKBACK_CUDA_TRY(cudaFree(d_values_out));
  }
  LOOKBACK_CUDA_TRY(cudaFree(d_keys));
  LOOKBACK_CUDA_TRY(cudaFree(d_keys_out));
}

template <class T>
void scan(const char* tag, const char* type, int log_n) {
  const std::int64_t n = std::int64_t{1} << log_n;
  auto* d_in = device_random<T>(n, 11u);
  auto* d_out = device_buffer<T>(n);
  time_call(tag, "exclusive_scan", type, log_n, [&](void* d_temp, std::size_t& bytes) {
    lookback::exclusive_scan(d_temp, bytes, d_in, d_out, T{0}, lookback::sum{}, n);
  });
  LOOKBACK_CUDA_TRY(cudaFree(d_in));
  LOOKBACK_CUDA_TRY(cudaFree(d_out));
}

}  // namespace

int main(int argc, char** argv) try {
  const char* tag = argc > 1 ? argv[1] : "this";
  const bool scans_only = argc > 2 && std::string(argv[2]) == "scans";  // "TAG scans": the scan rows alone
  if (!scans_only) {
    for (const int log_n : {16, 20, 24, 28}) sorts<std::uint32_t>(tag, "uint32", log_n);
    for (const int log_n : {20, 24, 27}) sorts<std::uint64_t>(tag, "uint64", log_n);
  }
  for (const int log_n : {18, 20, 22, 24, 28}) scan<std::uint32_t>(tag, "uint32", log_n);
  for (const int log_n : {20, 22, 24, 28}) scan<std::uint64_t>(tag, "uint64", log_n);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "commit_ab: %s\n", e.what());
  return 70;
}
