#pragma once
// What lookback_dist_bench's files share: NCCL entry points newer than the oldest NCCL it builds with,
// looked up where the loaded library has them, and random keys made on the GPU.
#include <lookback/primitives/error.cuh>

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <nccl.h>

#include <cstdint>
#include <random>

namespace lookback::bench {

using alltoall_fn = ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t, ncclComm_t, cudaStream_t);

/// A symbol of the loaded NCCL, or null where it is older than the one a row needs (ncclAlltoAll and
/// ncclCommWindowRegister: 2.28 and later).
template <class Fn>
Fn nccl_symbol(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, name));
}

/// The run's seed: fresh data every run, the same for every row of it.
inline std::uint64_t run_seed() {
  static const std::uint64_t seed = (std::uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
  return seed;
}

/// Random bits over the whole key, from the item's global position, so a slice does not depend on
/// the GPU count.
template <class T>
__global__ void fill_random(T* d_out, std::int64_t n, std::int64_t first, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    std::uint64_t z = (static_cast<std::uint64_t>(first + i) + seed) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    d_out[i] = static_cast<T>(z >> (64 - 8 * sizeof(T)));
  }
}

/// d_out[0, n) as items first ... first + n - 1 of the run's random keys for `salt`.
template <class T>
void fill_random_slice(T* d_out, std::int64_t n, std::int64_t first, std::uint64_t salt, cudaStream_t stream) {
  if (n == 0) return;
  fill_random<<<1024, 256, 0, stream>>>(d_out, n, first, run_seed() + salt);
  LOOKBACK_CUDA_TRY(cudaGetLastError());
}

/// NCCL's copy-engine all-to-all beside its kernels, alone and under a local sort (dist_copy_engine_bench.cu).
void register_copy_engine_rows(int gpus, std::int64_t total);

}  // namespace lookback::bench
