// The public sort and scan, timed the same way against the headers of whichever tree it is built
// with (scripts/commit-ab builds it once per commit). A flag inside one tree compares only what the
// flag switches; trees built whole compare everything that differs between them.
//
// Prints "TAG op type n ms" lines: CUDA events around each call, 3 calls first, the median of 15. The
// host's submission is inside each time (no stream hold), the same for every tree.
#include <lookback/algorithms/radix_sort.cuh>
#include <lookback/primitives/error.cuh>
#include <lookback/primitives/scan.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <random>
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
  cudaEvent_t start, stop;
  LOOKBACK_CUDA_TRY(cudaEventCreate(&start));
  LOOKBACK_CUDA_TRY(cudaEventCreate(&stop));
  std::vector<float> ms;
  for (int i = 0; i < 18; ++i) {
    LOOKBACK_CUDA_TRY(cudaEventRecord(start));
    call(d_temp, bytes);  // the library checks its own launches
    LOOKBACK_CUDA_TRY(cudaEventRecord(stop));
    LOOKBACK_CUDA_TRY(cudaEventSynchronize(stop));
    float t = 0;
    LOOKBACK_CUDA_TRY(cudaEventElapsedTime(&t, start, stop));
    if (i >= 3) ms.push_back(t);
  }
  std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
  std::printf("%s %s %s 2^%d %.4f\n", tag, op, type, log_n, ms[ms.size() / 2]);
  std::fflush(stdout);
  LOOKBACK_CUDA_TRY(cudaEventDestroy(start));
  LOOKBACK_CUDA_TRY(cudaEventDestroy(stop));
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

void scan(const char* tag, int log_n) {
  const std::int64_t n = std::int64_t{1} << log_n;
  auto* d_in = device_random<std::uint32_t>(n, 11u);
  auto* d_out = device_buffer<std::uint32_t>(n);
  time_call(tag, "exclusive_scan", "uint32", log_n, [&](void* d_temp, std::size_t& bytes) {
    lookback::exclusive_scan(d_temp, bytes, d_in, d_out, 0u, lookback::sum{}, n);
  });
  LOOKBACK_CUDA_TRY(cudaFree(d_in));
  LOOKBACK_CUDA_TRY(cudaFree(d_out));
}

}  // namespace

int main(int argc, char** argv) try {
  const char* tag = argc > 1 ? argv[1] : "this";
  for (const int log_n : {16, 20, 24, 28}) sorts<std::uint32_t>(tag, "uint32", log_n);
  for (const int log_n : {20, 24, 27}) sorts<std::uint64_t>(tag, "uint64", log_n);
  for (const int log_n : {20, 24, 28}) scan(tag, log_n);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "commit_ab: %s\n", e.what());
  return 70;
}
