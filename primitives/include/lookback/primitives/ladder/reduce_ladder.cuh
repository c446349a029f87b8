#pragma once
// The reduction ladder: Harris's seven sum reductions ("Optimizing Parallel Reduction in CUDA"), the
// two steps that came after them (warp shuffles, cooperative groups) and the production reduction, each
// a complete, correct kernel for any n, so that `lookback ladder reduce` can time them side by side and
// show what every step buys.
//
// Rungs 1 to 6 reduce each block's slice to one partial; the driver runs the same kernel again over
// the partials until one value is left (the kernel launch is the only grid-wide barrier CUDA offers).
// Rungs 7 to 9 fold the input with a fixed, device-filling grid, then one block folds the partials.
//
// Entry point in the CUB style: a null d_temp asks for temp_bytes (always > 0), the real call runs
// stream-ordered, never synchronises the host and checks every launch.
#include <lookback/primitives/detail/device_limits.cuh>
#include <lookback/primitives/error.cuh>
#include <lookback/primitives/ladder/ladder_common.cuh>
#include <lookback/primitives/operators.cuh>
#include <lookback/primitives/reduce.cuh>

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

namespace lookback::ladder {

enum class reduce_variant : int {
  interleaved_divergent = 1,
  interleaved_strided = 2,
  sequential_addressing = 3,
  first_add_during_load = 4,
  unrolled_last_warp = 5,
  completely_unrolled = 6,
  multiple_elements_per_thread = 7,
  warp_shuffle = 8,
  cooperative_groups = 9,
  production = 10,
};

inline constexpr reduce_variant reduce_variants[] = {
    reduce_variant::interleaved_divergent,        reduce_variant::interleaved_strided,
    reduce_variant::sequential_addressing,        reduce_variant::first_add_during_load,
    reduce_variant::unrolled_last_warp,           reduce_variant::completely_unrolled,
    reduce_variant::multiple_elements_per_thread, reduce_variant::warp_shuffle,
    reduce_variant::cooperative_groups,           reduce_variant::production,
};

/// "1 interleaved, divergent": the rung's number and what it adds.
constexpr const char* name(reduce_variant v) {
  switch (v) {
    case reduce_variant::interleaved_divergent: return "1 interleaved, divergent";
    case reduce_variant::interleaved_strided: return "2 interleaved, strided index";
    case reduce_variant::sequential_addressing: return "3 sequential addressing";
    case reduce_variant::first_add_during_load: return "4 first add during load";
    case reduce_variant::unrolled_last_warp: return "5 unrolled last warp";
    case reduce_variant::completely_unrolled: return "6 completely unrolled";
    case reduce_variant::multiple_elements_per_thread: return "7 multiple elements per thread";
    case reduce_variant::warp_shuffle: return "8 warp shuffles";
    case reduce_variant::cooperative_groups: return "9 cooperative groups";
    case reduce_variant::production: return "10 production (lookback::reduce)";
  }
  return "?";
}

namespace detail {

inline constexpr int warp_threads = 32;

// --- rungs 1 to 3: one item per thread, a tree in shared memory -----------------------------------

// 1. The textbook tree: at step s, threads whose index is a multiple of 2s add their partner. Correct,
// but every warp keeps running both sides of the branch until whole warps fall idle, the modulo is
// slow, and half the threads are idle from the first step.
template <class T>
__global__ void __launch_bounds__(block_threads) reduce_interleaved_divergent(const T* in, std::int64_t n, T* out) {
  __shared__ T s[block_threads];
  const unsigned tid = threadIdx.x;
  s[tid] = load_or_zero(in, static_cast<std::int64_t>(blockIdx.x) * block_threads + tid, n);
  __syncthreads();
  for (unsigned stride = 1; stride < block_threads; stride *= 2) {
    if (tid % (2 * stride) == 0) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) store_partial(out, s[0]);
}

// 2. The same tree with the work given to the lowest-numbered threads (index = 2*s*tid): active
// threads are contiguous, so whole warps retire and no warp diverges until fewer than 32 remain.
// The price: threads of a warp now touch addresses 2s apart, an s-way shared-memory bank conflict
// (on Hopper that costs more than the divergence saved: this rung measures slower than rung 1).
template <class T>
__global__ void __launch_bounds__(block_threads) reduce_interleaved_strided(const T* in, std::int64_t n, T* out) {
  __shared__ T s[block_threads];
  const unsigned tid = threadIdx.x;
  s[tid] = load_or_zero(in, static_cast<std::int64_t>(blockIdx.x) * block_threads + tid, n);
  __syncthreads();
  for (unsigned stride = 1; stride < block_threads; stride *= 2) {
    const unsigned index = 2 * stride * tid;
    if (index < block_threads) s[index] += s[index + stride];
    __syncthreads();
  }
  if (tid == 0) store_partial(out, s[0]);
}

/// The tree folded from the top (partners half a block apart, then a quarter, ...): contiguous
/// threads read contiguous words, so there are no bank conflicts and idle warps retire early.
template <class T>
__device__ __forceinline__ void sequential_tree(T* s, unsigned tid, unsigned down_to) {
  for (unsigned stride = block_threads / 2; stride > down_to; stride >>= 1) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
}

// 3. Sequential addressing: conflict-free and convergent. Half the threads still idle on the first step.
template <class T>
__global__ void __launch_bounds__(block_threads) reduce_sequential_addressing(const T* in, std::int64_t n, T* out) {
  __shared__ T s[block_threads];
  const unsigned tid = threadIdx.x;
  s[tid] = load_or_zero(in, static_cast<std::int64_t>(blockIdx.x) * block_threads + tid, n);
  __syncthreads();
  sequential_tree(s, tid, 0);
  if (tid == 0) store_partial(out, s[0]);
}

// --- rungs 4 to 6: two items per thread, less time in the tree -------------------------------------

/// Each thread adds two items, a block apart (both loads coalesced), before the tree: half the blocks,
/// and no thread idle at the first step.
template <class T, int BlockSize>
__device__ __forceinline__ T first_add(const T* in, std::int64_t n) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * (2 * BlockSize) + threadIdx.x;
  return load_or_zero(in, i, n) + load_or_zero(in, i + BlockSize, n);
}

// 4. First add during the global load.
template <class T>
__global__ void __launch_bounds__(block_threads) reduce_first_add_during_load(const T* in, std::int64_t n, T* out) {
  __shared__ T s[block_threads];
  const unsigned tid = threadIdx.x;
  s[tid] = first_add<T, block_threads>(in, n);
  __syncthreads();
  sequential_tree(s, tid, 0);
  if (tid == 0) store_partial(out, s[0]);
}

/// The last six steps, within the first warp, without __syncthreads. Harris relied on a warp running
/// in lockstep through a volatile pointer; since Volta, threads of a warp are scheduled independently
/// and that is a race. __syncwarp() between reading the partner and writing the own slot (and again
/// before the next read) restores the ordering at the cost of a warp-level barrier, far cheaper than a
/// block barrier. Expects s[0..63] to hold the 64 values left; lane 0 returns the total.
template <class T>
__device__ __forceinline__ T last_warp_shared(T* s, unsigned lane) {
  T v = s[lane];
#pragma unroll
  for (unsigned offset = warp_threads; offset > 0; offset >>= 1) {
    v += s[lane + offset];
    __syncwarp();
    s[lane] = v;
    __syncwarp();
  }
  return v;
}

// 5. Unroll the last warp: the tree stops at 64 values with block barriers, and the last six steps
// run in the first warp with warp barriers only (the other warps are done and can retire).
template <class T>
__global__ void __launch_bounds__(block_threads) reduce_unrolled_last_warp(const T* in, std::int64_t n, T* out) {
  __shared__ T s[block_threads];
  const unsigned tid = threadIdx.x;
  s[tid] = first_add<T, block_threads>(in, n);
  __syncthreads();
  sequential_tree(s, tid, warp_threads);
  if (tid < warp_threads) {
    const T total = last_warp_shared(s, tid);
    if (tid == 0) store_partial(out, total);
  }
}

/// The block-wide steps down to 64 values, unrolled at compile time from the block size: no loop
/// counter, no loop branch, and the `tid < stride` tests become constants.
template <int BlockSize, class T>
__device__ __forceinline__ void unrolled_tree(T* s, unsigned tid) {
  static_assert(BlockSize >= 64 && BlockSize <= 1024 && (BlockSize & (BlockSize - 1)) == 0, "64..1024, power of two");
  if constexpr (BlockSize >= 1024) {
    if (tid < 512) s[tid] += s[tid + 512];
    __syncthreads();
  }
  if constexpr (BlockSize >= 512) {
    if (tid < 256) s[tid] += s[tid + 256];
    __syncthreads();
  }
  if constexpr (BlockSize >= 256) {
    if (tid < 128) s[tid] += s[tid + 128];
    __syncthreads();
  }
  if constexpr (BlockSize >= 128) {
    if (tid < 64) s[tid] += s[tid + 64];
    __syncthreads();
  }
}

// 6. Completely unrolled: the block size is a template parameter (the host picks the instantiation,
// here the policy's one), so the whole tree is straight-line code.
template <int BlockSize, class T>
__global__ void __launch_bounds__(BlockSize) reduce_completely_unrolled(const T* in, std::int64_t n, T* out) {
  __shared__ T s[BlockSize];
  const unsigned tid = threadIdx.x;
  s[tid] = first_add<T, BlockSize>(in, n);
  __syncthreads();
  unrolled_tree<BlockSize>(s, tid);
  if (tid < warp_threads) {
    const T total = last_warp_shared(s, tid);
    if (tid == 0) store_partial(out, total);
  }
}

// --- rungs 7 to 9: a fixed grid, many items per thread ----------------------------------------------

/// Each thread folds items 2*BlockSize*gridDim.x apart (two per trip, a block apart) into a register:
/// with a device-filling grid the tree runs once per block instead of once per 2*BlockSize items, and
/// many independent loads per thread hide the memory latency (Brent's theorem: the sequential part is
/// work-efficient, the tree only combines the per-thread sums).
template <class T, int BlockSize>
__device__ __forceinline__ T grid_stride_sum(const T* in, std::int64_t n) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * (2 * BlockSize);
  T acc = neutral<T>();
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * (2 * BlockSize) + threadIdx.x; i < n; i += step) {
    acc += in[i];
    if (i + BlockSize < n) acc += in[i + BlockSize];
  }
  return acc;
}

// 7. Multiple elements per thread, then rung 6's tree.
template <int BlockSize, class T>
__global__ void __launch_bounds__(BlockSize) reduce_multiple_elements(const T* in, std::int64_t n, T* out) {
  __shared__ T s[BlockSize];
  const unsigned tid = threadIdx.x;
  s[tid] = grid_stride_sum<T, BlockSize>(in, n);
  __syncthreads();
  unrolled_tree<BlockSize>(s, tid);
  if (tid < warp_threads) {
    const T total = last_warp_shared(s, tid);
    if (tid == 0) store_partial(out, total);
  }
}

/// A warp's sum through register shuffles: five steps with no shared memory and no barrier at all;
/// lane 0 ends with the total.
template <class T>
__device__ __forceinline__ T warp_sum_shuffle(T v) {
#pragma unroll
  for (int offset = warp_threads / 2; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// 8. Warp shuffles: each warp reduces in registers, one shared slot per warp, one block barrier, and
// the first warp reduces the warp totals the same way. Shared memory traffic falls from a block's
// worth of words per step to one word per warp.
template <int BlockSize, class T>
__global__ void __launch_bounds__(BlockSize) reduce_warp_shuffle(const T* in, std::int64_t n, T* out) {
  constexpr int warps = BlockSize / warp_threads;
  __shared__ T warp_totals[warps];
  const unsigned lane = threadIdx.x % warp_threads;
  const unsigned warp = threadIdx.x / warp_threads;
  const T total = warp_sum_shuffle(grid_stride_sum<T, BlockSize>(in, n));
  if (lane == 0) warp_totals[warp] = total;
  __syncthreads();
  if (warp == 0) {
    const T block_total = warp_sum_shuffle(lane < warps ? warp_totals[lane] : neutral<T>());
    if (lane == 0) store_partial(out, block_total);
  }
}

// 9. Cooperative groups: the same structure, with the warp reduction left to the library, which on
// sm_80 and later turns 32-bit integer sums into one redux.sync instruction, and with the groups
// (block, 32-thread tiles) explicit in the code instead of implied by lane arithmetic.
template <int BlockSize, class T>
__global__ void __launch_bounds__(BlockSize) reduce_cooperative_groups(const T* in, std::int64_t n, T* out) {
  namespace cg = cooperative_groups;
  constexpr int warps = BlockSize / warp_threads;
  __shared__ T warp_totals[warps];
  const cg::thread_block block = cg::this_thread_block();
  const cg::thread_block_tile<warp_threads> tile = cg::tiled_partition<warp_threads>(block);
  const T total = cg::reduce(tile, grid_stride_sum<T, BlockSize>(in, n), cg::plus<T>());
  if (tile.thread_rank() == 0) warp_totals[tile.meta_group_rank()] = total;
  block.sync();
  if (tile.meta_group_rank() == 0) {
    const T block_total = cg::reduce(tile, tile.thread_rank() < warps ? warp_totals[tile.thread_rank()] : neutral<T>(),
                                     cg::plus<T>());
    if (tile.thread_rank() == 0) store_partial(out, block_total);
  }
}

// --- drivers ---------------------------------------------------------------------------------------

template <class T>
using reduce_kernel = void (*)(const T*, std::int64_t, T*);

/// Rungs 1 to 6: one partial per block, then the same kernel over the partials, until one block is
/// enough; it writes the result. Two scratch buffers alternate (each pass is smaller than the last, so
/// the first pass's buffer fits every later even pass). n == 0 launches one block, which writes 0.
template <class T>
void reduce_multi_pass(reduce_kernel<T> kernel, int items_per_block, const T* d_in, std::int64_t n, T* d_out,
                       void* d_temp, std::size_t& temp_bytes, cudaStream_t stream, const char* who) {
  const auto blocks_for = [&](std::int64_t count) { return std::max<std::int64_t>(1, ceil_div(count, items_per_block)); };
  const std::int64_t first = blocks_for(n);
  const std::int64_t second = blocks_for(first);
  const temp_layout layout({static_cast<std::size_t>(first) * sizeof(T), static_cast<std::size_t>(second) * sizeof(T)});
  if (layout.answer_query(d_temp, temp_bytes, who)) return;

  T* const buffers[2] = {layout.part<T>(d_temp, 0), layout.part<T>(d_temp, 1)};
  const T* src = d_in;
  std::int64_t count = n;
  for (int pass = 0;; ++pass) {
    const std::int64_t blocks = blocks_for(count);
    T* dst = blocks == 1 ? d_out : buffers[pass % 2];
    kernel<<<grid_of(blocks, who), block_threads, 0, stream>>>(src, count, dst);
    LOOKBACK_CUDA_TRY(cudaGetLastError());
    if (blocks == 1) return;
    src = dst;
    count = blocks;
  }
}

/// Rungs 7 to 9: as many blocks as the device runs at once (fewer when n is small), each folding its
/// share; then the same kernel as one block over the partials.
template <class T>
void reduce_fixed_grid(reduce_kernel<T> kernel, const T* d_in, std::int64_t n, T* d_out, void* d_temp,
                       std::size_t& temp_bytes, cudaStream_t stream, const char* who) {
  const std::int64_t wanted = std::max<std::int64_t>(1, ceil_div(n, 2 * block_threads));
  const int blocks =
      static_cast<int>(std::min<std::int64_t>(wanted, ::lookback::detail::resident_blocks(kernel, block_threads)));
  const temp_layout layout({static_cast<std::size_t>(blocks) * sizeof(T)});
  if (layout.answer_query(d_temp, temp_bytes, who)) return;

  if (blocks == 1) {
    kernel<<<1, block_threads, 0, stream>>>(d_in, n, d_out);
    LOOKBACK_CUDA_TRY(cudaGetLastError());
    return;
  }
  T* partials = layout.part<T>(d_temp, 0);
  kernel<<<static_cast<unsigned>(blocks), block_threads, 0, stream>>>(d_in, n, partials);
  LOOKBACK_CUDA_TRY(cudaGetLastError());
  kernel<<<1, block_threads, 0, stream>>>(partials, blocks, d_out);
  LOOKBACK_CUDA_TRY(cudaGetLastError());
}

}  // namespace detail

/// *d_out = d_in[0] + ... + d_in[n-1] (0 when n == 0) with the ladder's rung `variant`.
/// T: int32, uint32, int64, uint64, float or double. CUB's convention: d_temp == nullptr stores the
/// temporary size (> 0) in temp_bytes and returns; otherwise the reduction is queued on `stream`.
template <class T>
void reduce_sum(reduce_variant variant, const T* d_in, std::int64_t n, T* d_out, void* d_temp,
                std::size_t& temp_bytes, cudaStream_t stream = nullptr) {
  static_assert(detail::ladder_type<T>, "the ladder sums arithmetic types");
  using namespace detail;
  constexpr const char* who = "lookback::ladder::reduce_sum";
  check_item_count(n, who);
  constexpr int b = block_threads;
  switch (variant) {
    case reduce_variant::interleaved_divergent:
      return reduce_multi_pass<T>(reduce_interleaved_divergent<T>, b, d_in, n, d_out, d_temp, temp_bytes, stream, who);
    case reduce_variant::interleaved_strided:
      return reduce_multi_pass<T>(reduce_interleaved_strided<T>, b, d_in, n, d_out, d_temp, temp_bytes, stream, who);
    case reduce_variant::sequential_addressing:
      return reduce_multi_pass<T>(reduce_sequential_addressing<T>, b, d_in, n, d_out, d_temp, temp_bytes, stream, who);
    case reduce_variant::first_add_during_load:
      return reduce_multi_pass<T>(reduce_first_add_during_load<T>, 2 * b, d_in, n, d_out, d_temp, temp_bytes, stream,
                                  who);
    case reduce_variant::unrolled_last_warp:
      return reduce_multi_pass<T>(reduce_unrolled_last_warp<T>, 2 * b, d_in, n, d_out, d_temp, temp_bytes, stream, who);
    case reduce_variant::completely_unrolled:
      return reduce_multi_pass<T>(reduce_completely_unrolled<b, T>, 2 * b, d_in, n, d_out, d_temp, temp_bytes, stream,
                                  who);
    case reduce_variant::multiple_elements_per_thread:
      return reduce_fixed_grid<T>(reduce_multiple_elements<b, T>, d_in, n, d_out, d_temp, temp_bytes, stream, who);
    case reduce_variant::warp_shuffle:
      return reduce_fixed_grid<T>(reduce_warp_shuffle<b, T>, d_in, n, d_out, d_temp, temp_bytes, stream, who);
    case reduce_variant::cooperative_groups:
      return reduce_fixed_grid<T>(reduce_cooperative_groups<b, T>, d_in, n, d_out, d_temp, temp_bytes, stream, who);
    case reduce_variant::production:
      return ::lookback::reduce(d_temp, temp_bytes, d_in, d_out, n, ::lookback::sum{}, T(0), stream);
  }
  throw std::invalid_argument(std::string(who) + ": unknown variant " + std::to_string(static_cast<int>(variant)));
}

}  // namespace lookback::ladder
