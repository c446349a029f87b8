#pragma once
// The scan ladder: inclusive sums from the textbook block scans (Kogge-Stone, Brent-Kung, coarsened)
// through the hierarchical scan-then-propagate and the chained single-pass ("domino") scan to the
// production decoupled look-back, each correct for any n, so that `lookback ladder scan` can time them
// side by side.
//
// The in-block scans (rungs 1 to 4) and rung 5 scan arbitrary lengths through one hierarchical driver:
// scan every tile and keep its total, scan the totals (recursively, with the same tile scan), add each
// scanned total to the tile after it. That costs about 4n memory traffic (read, write, read-modify-write)
// against the 2n of rungs 6 and 7.
//
// Entry point in the CUB style: a null d_temp asks for temp_bytes (always > 0), the real call runs
// stream-ordered, never synchronises the host and checks every launch.
#include <lookback/primitives/block/block_scan.cuh>
#include <lookback/primitives/error.cuh>
#include <lookback/primitives/ladder/ladder_common.cuh>
#include <lookback/primitives/operators.cuh>
#include <lookback/primitives/scan.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace lookback::ladder {

enum class scan_variant : int {
  kogge_stone = 1,
  kogge_stone_double_buffered = 2,
  brent_kung = 3,
  coarsened = 4,
  hierarchical = 5,
  single_pass_domino = 6,
  production = 7,
};

inline constexpr scan_variant scan_variants[] = {
    scan_variant::kogge_stone, scan_variant::kogge_stone_double_buffered, scan_variant::brent_kung,
    scan_variant::coarsened,   scan_variant::hierarchical,                scan_variant::single_pass_domino,
    scan_variant::production,
};

constexpr const char* name(scan_variant v) {
  switch (v) {
    case scan_variant::kogge_stone: return "1 Kogge-Stone";
    case scan_variant::kogge_stone_double_buffered: return "2 Kogge-Stone, double-buffered";
    case scan_variant::brent_kung: return "3 Brent-Kung";
    case scan_variant::coarsened: return "4 coarsened three-phase";
    case scan_variant::hierarchical: return "5 hierarchical, warp-shuffle block scan";
    case scan_variant::single_pass_domino: return "6 single-pass domino";
    case scan_variant::production: return "7 production (decoupled look-back)";
  }
  return "?";
}

namespace detail {

inline constexpr int coarsened_items = policy::ladder::scan_items_per_thread;
inline constexpr int coarsened_tile = block_threads * coarsened_items;

/// Tile kernels: block b scans items [b*tile, (b+1)*tile) of `in` into `out` and, when `tile_sums` is
/// not null, stores the tile's total in tile_sums[b]. Each block reads its whole tile before writing
/// any of it, so in == out is allowed (the driver scans the tile totals in place).
template <class T>
using tile_kernel = void (*)(const T*, T*, std::int64_t, T*);

// 1. Kogge-Stone: after step k each slot holds the sum of the 2^k items ending at it, so log2(256) = 8
// steps finish the block (few steps, at the cost of n log n additions). One array is read and written
// in the same step, so each step needs two barriers: every read done before any write (write after
// read), every write done before the next step's reads.
template <class T>
__global__ void __launch_bounds__(block_threads) scan_tile_kogge_stone(const T* in, T* out, std::int64_t n, T* tile_sums) {
  __shared__ T xy[block_threads];
  const int tid = static_cast<int>(threadIdx.x);
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * block_threads + tid;
  xy[tid] = load_or_zero(in, i, n);
  __syncthreads();
  for (int stride = 1; stride < block_threads; stride *= 2) {
    T sum = T(0);
    if (tid >= stride) sum = xy[tid - stride] + xy[tid];
    __syncthreads();
    if (tid >= stride) xy[tid] = sum;
    __syncthreads();
  }
  const T mine = xy[tid];
  if (i < n) out[i] = mine;
  if (tile_sums != nullptr && tid == block_threads - 1) tile_sums[blockIdx.x] = mine;
}

// 2. Kogge-Stone, double-buffered: each step reads one array and writes the other, so the write-after-
// read hazard is gone and one barrier per step is enough, for twice the shared memory.
template <class T>
__global__ void __launch_bounds__(block_threads)
    scan_tile_kogge_stone_double_buffered(const T* in, T* out, std::int64_t n, T* tile_sums) {
  __shared__ T buffer[2][block_threads];
  const int tid = static_cast<int>(threadIdx.x);
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * block_threads + tid;
  T mine = load_or_zero(in, i, n);
  buffer[0][tid] = mine;
  __syncthreads();
  int src = 0;
  for (int stride = 1; stride < block_threads; stride *= 2) {
    if (tid >= stride) mine = buffer[src][tid - stride] + mine;
    buffer[src ^ 1][tid] = mine;
    src ^= 1;
    __syncthreads();
  }
  if (i < n) out[i] = mine;
  if (tile_sums != nullptr && tid == block_threads - 1) tile_sums[blockIdx.x] = mine;
}

// 3. Brent-Kung: a reduction tree up (partial sums towards the highest index of each pair) and a
// distribution tree down (each partial sum added to the element half a stride to its right): about
// 2n additions instead of n log n, in twice the steps. Two items per thread, so a 512-item tile, and
// the improved thread-to-index mapping: consecutive threads take the positions one stride apart, so
// only the last steps (fewer than 32 active threads) leave warps partly idle.
template <class T>
__global__ void __launch_bounds__(block_threads) scan_tile_brent_kung(const T* in, T* out, std::int64_t n, T* tile_sums) {
  constexpr int tile = 2 * block_threads;
  __shared__ T xy[tile];
  const int tid = static_cast<int>(threadIdx.x);
  const std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * tile;
  xy[tid] = load_or_zero(in, base + tid, n);  // two coalesced loads, a block apart
  xy[tid + block_threads] = load_or_zero(in, base + tid + block_threads, n);
  for (int stride = 1; stride <= block_threads; stride *= 2) {
    __syncthreads();
    const int index = (tid + 1) * 2 * stride - 1;
    if (index < tile) xy[index] += xy[index - stride];
  }
  for (int stride = tile / 4; stride > 0; stride /= 2) {
    __syncthreads();
    const int index = (tid + 1) * 2 * stride - 1;
    if (index + stride < tile) xy[index + stride] += xy[index];
  }
  __syncthreads();
  if (base + tid < n) out[base + tid] = xy[tid];
  if (base + tid + block_threads < n) out[base + tid + block_threads] = xy[tid + block_threads];
  if (tile_sums != nullptr && tid == 0) tile_sums[blockIdx.x] = xy[tile - 1];
}

/// Shared-memory slot of tile item i, one word of padding every 32: thread t's run of 8 consecutive
/// items (t*8 .. t*8+7) then starts in bank (8t + t/4) mod 32, which differs for the 32 threads of a
/// warp (4-byte items), while the coalesced, warp-contiguous loads and stores stay conflict-free.
__device__ __forceinline__ int padded(int i) { return i + i / 32; }
inline constexpr int padded_tile = coarsened_tile + coarsened_tile / 32;

/// Moves a tile between global memory and shared memory in the coalesced order (consecutive threads,
/// consecutive addresses), whatever order the threads later work in.
template <class T>
__device__ __forceinline__ void load_tile(const T* in, std::int64_t base, std::int64_t n, T* xy) {
#pragma unroll
  for (int j = 0; j < coarsened_items; ++j) {
    const int index = j * block_threads + static_cast<int>(threadIdx.x);
    xy[padded(index)] = load_or_zero(in, base + index, n);
  }
}
template <class T>
__device__ __forceinline__ void store_tile(const T* xy, T add, std::int64_t base, std::int64_t n, T* out) {
#pragma unroll
  for (int j = 0; j < coarsened_items; ++j) {
    const int index = j * block_threads + static_cast<int>(threadIdx.x);
    if (base + index < n) out[base + index] = xy[padded(index)] + add;
  }
}

// 4. Coarsened three-phase: each thread scans its own 8 consecutive items sequentially (work-efficient,
// no barriers), a Kogge-Stone scans only the 256 sub-section totals, and each thread adds its
// predecessor's total to its items. The parallel, work-inefficient part shrinks 8-fold; the tile
// grows to 2048 items, so the hierarchy above it is 8 times smaller too.
template <class T>
__global__ void __launch_bounds__(block_threads) scan_tile_coarsened(const T* in, T* out, std::int64_t n, T* tile_sums) {
  __shared__ T xy[padded_tile];
  __shared__ T totals[2][block_threads];
  const int tid = static_cast<int>(threadIdx.x);
  const std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * coarsened_tile;
  load_tile(in, base, n, xy);
  __syncthreads();

  // Phase 1: the thread's sub-section, sequentially.
  T running = neutral<T>();
#pragma unroll
  for (int k = 0; k < coarsened_items; ++k) {
    running += xy[padded(tid * coarsened_items + k)];
    xy[padded(tid * coarsened_items + k)] = running;
  }
  // Phase 2: Kogge-Stone (double-buffered) over the sub-section totals.
  totals[0][tid] = running;
  __syncthreads();
  int src = 0;
  for (int stride = 1; stride < block_threads; stride *= 2) {
    if (tid >= stride) running = totals[src][tid - stride] + running;
    totals[src ^ 1][tid] = running;
    src ^= 1;
    __syncthreads();
  }
  // Phase 3: the predecessor's inclusive total is this sub-section's offset.
  const T offset = tid > 0 ? totals[src][tid - 1] : neutral<T>();
#pragma unroll
  for (int k = 0; k < coarsened_items; ++k) xy[padded(tid * coarsened_items + k)] += offset;
  __syncthreads();
  store_tile(xy, neutral<T>(), base, n, out);
  if (tile_sums != nullptr && tid == block_threads - 1) tile_sums[blockIdx.x] = running;
}

/// The tile scan of rungs 5 and 6: the coarsened structure with its middle phase done by the production
/// block scan (warp shuffles, then one warp over the warp totals: two barriers instead of sixteen), and
/// the sub-sections scanned in registers. Leaves the tile's inclusive scan (without any carry-in) in xy
/// and returns the tile total to every thread.
template <class T>
__device__ __forceinline__ T scan_tile_in_shared(T* xy, typename block::scan<T, block_threads>::storage& storage) {
  const int tid = static_cast<int>(threadIdx.x);
  T items[coarsened_items];
#pragma unroll
  for (int k = 0; k < coarsened_items; ++k) items[k] = xy[padded(tid * coarsened_items + k)];
#pragma unroll
  for (int k = 1; k < coarsened_items; ++k) items[k] += items[k - 1];
  T tile_total;
  const T offset = block::scan<T, block_threads>::exclusive(items[coarsened_items - 1], ::lookback::sum{}, neutral<T>(),
                                                              tile_total, storage);
  // Each thread rewrites only its own sub-section, which only it read: no barrier needed before this.
#pragma unroll
  for (int k = 0; k < coarsened_items; ++k) xy[padded(tid * coarsened_items + k)] = offset + items[k];
  __syncthreads();
  return tile_total;
}

// 5. Hierarchical, with the warp-shuffle block scan as the tile scan.
template <class T>
__global__ void __launch_bounds__(block_threads)
    scan_tile_hierarchical(const T* in, T* out, std::int64_t n, T* tile_sums) {
  __shared__ T xy[padded_tile];
  __shared__ typename block::scan<T, block_threads>::storage storage;
  const std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * coarsened_tile;
  load_tile(in, base, n, xy);
  __syncthreads();
  const T tile_total = scan_tile_in_shared(xy, storage);
  store_tile(xy, neutral<T>(), base, n, out);
  if (tile_sums != nullptr && threadIdx.x == 0) tile_sums[blockIdx.x] = tile_total;
}

/// The propagation kernel of the hierarchy: block b adds the scanned total of tiles 0..b to tile b+1
/// (tile 0 has nothing before it).
template <class T>
__global__ void __launch_bounds__(block_threads)
    add_tile_prefixes(T* out, std::int64_t n, const T* scanned_tile_sums, int tile_items) {
  const std::int64_t tile = static_cast<std::int64_t>(blockIdx.x) + 1;
  const T prefix = scanned_tile_sums[tile - 1];
  const std::int64_t tile_end = (tile + 1) * tile_items;
  const std::int64_t end = tile_end < n ? tile_end : n;
  for (std::int64_t i = tile * tile_items + threadIdx.x; i < end; i += block_threads) out[i] += prefix;
}

// 6. Single-pass "domino": one kernel reads and writes each item once (2n traffic). Each block scans its
// tile, then waits for its predecessor's inclusive sum, adds it, and publishes its own for the next
// block: the carries ripple through global memory (L2) from tile to tile. Blocks take their tile id
// from an atomic counter in the order they start, not from blockIdx.x: the tile a block waits for has
// then always been taken by a block that is already running, so the chain cannot deadlock whatever
// order the hardware schedules blocks in. The hand-offs are serial: flag seen, fence, value read,
// value written, fence, flag written, about 1.1 us per tile on an H100, so 2^24 items (8192 tiles)
// take some 9 ms whatever the bandwidth. Decoupled look-back (rung 7) removes that chain.
template <class T>
__global__ void __launch_bounds__(block_threads)
    scan_single_pass_domino(const T* in, T* out, std::int64_t n, unsigned* tile_counter, unsigned* flags, T* carried) {
  __shared__ T xy[padded_tile];
  __shared__ typename block::scan<T, block_threads>::storage storage;
  __shared__ unsigned tile_s;
  __shared__ T carry_in_s;
  if (threadIdx.x == 0) tile_s = atomicAdd(tile_counter, 1u);
  __syncthreads();
  const unsigned tile = tile_s;
  const std::int64_t base = static_cast<std::int64_t>(tile) * coarsened_tile;
  load_tile(in, base, n, xy);
  __syncthreads();
  const T tile_total = scan_tile_in_shared(xy, storage);

  if (threadIdx.x == 0) {
    T carry_in = neutral<T>();
    if (tile > 0) {
      // Volatile loads go to L2 every time, so the spin sees the predecessor's flag when it lands.
      while (*static_cast<volatile unsigned*>(&flags[tile - 1]) == 0u) {
      }
      __threadfence();  // the flag was read before the sum it guards
      carry_in = *static_cast<volatile T*>(&carried[tile - 1]);
    }
    *static_cast<volatile T*>(&carried[tile]) = carry_in + tile_total;
    __threadfence();  // the sum reaches global memory before the flag that announces it
    *static_cast<volatile unsigned*>(&flags[tile]) = 1u;
    carry_in_s = carry_in;
  }
  __syncthreads();
  store_tile(xy, carry_in_s, base, n, out);
}

// --- drivers ---------------------------------------------------------------------------------------

/// Tile-sum array sizes of the hierarchy: one sum per tile of the input, then one per tile of those
/// sums, ... until a level fits in one tile (which needs no sums).
inline std::vector<std::int64_t> hierarchy_levels(std::int64_t n, int tile) {
  std::vector<std::int64_t> levels;
  for (std::int64_t tiles = ceil_div(n, tile); tiles > 1; tiles = ceil_div(tiles, tile)) levels.push_back(tiles);
  return levels;
}

template <class T>
void scan_levels(tile_kernel<T> kernel, int tile, const T* in, T* out, std::int64_t n, T* const* level_sums,
                 std::size_t level, cudaStream_t stream, const char* who) {
  const std::int64_t tiles = ceil_div(n, tile);
  T* sums = tiles > 1 ? level_sums[level] : nullptr;
  kernel<<<grid_of(tiles, who), block_threads, 0, stream>>>(in, out, n, sums);
  LOOKBACK_CUDA_TRY(cudaGetLastError());
  if (tiles == 1) return;
  scan_levels(kernel, tile, sums, sums, tiles, level_sums, level + 1, stream, who);
  add_tile_prefixes<T><<<grid_of(tiles - 1, who), block_threads, 0, stream>>>(out, n, sums, tile);
  LOOKBACK_CUDA_TRY(cudaGetLastError());
}

/// Rungs 1 to 5: scan tiles, scan the tile totals (recursively), add them back.
template <class T>
void scan_hierarchical(tile_kernel<T> kernel, int tile, const T* d_in, std::int64_t n, T* d_out, void* d_temp,
                       std::size_t& temp_bytes, cudaStream_t stream, const char* who) {
  const std::vector<std::int64_t> levels = hierarchy_levels(n, tile);
  std::vector<std::size_t> bytes;
  for (const std::int64_t count : levels) bytes.push_back(static_cast<std::size_t>(count) * sizeof(T));
  const temp_layout layout(bytes);
  if (layout.answer_query(d_temp, temp_bytes, who) || n == 0) return;
  std::vector<T*> level_sums;
  for (std::size_t l = 0; l < levels.size(); ++l) level_sums.push_back(layout.part<T>(d_temp, l));
  scan_levels(kernel, tile, d_in, d_out, n, level_sums.data(), 0, stream, who);
}

/// Rung 6: tile counter and flags zeroed on the stream before every launch (they are one contiguous
/// region at the front of the temporary storage), then one kernel.
template <class T>
void scan_domino(const T* d_in, std::int64_t n, T* d_out, void* d_temp, std::size_t& temp_bytes, cudaStream_t stream,
                 const char* who) {
  const std::int64_t tiles = ceil_div(n, coarsened_tile);
  const temp_layout layout({sizeof(unsigned), static_cast<std::size_t>(tiles) * sizeof(unsigned),
                             static_cast<std::size_t>(tiles) * sizeof(T)});
  if (layout.answer_query(d_temp, temp_bytes, who) || n == 0) return;
  const unsigned grid = grid_of(tiles, who);
  LOOKBACK_CUDA_TRY(cudaMemsetAsync(layout.start(d_temp), 0, layout.parts_bytes(), stream));
  scan_single_pass_domino<T><<<grid, block_threads, 0, stream>>>(d_in, d_out, n, layout.part<unsigned>(d_temp, 0),
                                                                 layout.part<unsigned>(d_temp, 1),
                                                                 layout.part<T>(d_temp, 2));
  LOOKBACK_CUDA_TRY(cudaGetLastError());
}

}  // namespace detail

/// d_out[i] = d_in[0] + ... + d_in[i] with the ladder's rung `variant`; d_in == d_out is allowed.
/// T: int32, uint32, int64, uint64, float or double. CUB's convention: d_temp == nullptr stores the
/// temporary size (> 0) in temp_bytes and returns; otherwise the scan is queued on `stream`.
template <class T>
void inclusive_scan_sum(scan_variant variant, const T* d_in, std::int64_t n, T* d_out, void* d_temp,
                        std::size_t& temp_bytes, cudaStream_t stream = nullptr) {
  static_assert(detail::ladder_type<T>, "the ladder sums arithmetic types");
  using namespace detail;
  constexpr const char* who = "lookback::ladder::inclusive_scan_sum";
  check_item_count(n, who);
  constexpr int b = block_threads;
  switch (variant) {
    case scan_variant::kogge_stone:
      return scan_hierarchical<T>(scan_tile_kogge_stone<T>, b, d_in, n, d_out, d_temp, temp_bytes, stream, who);
    case scan_variant::kogge_stone_double_buffered:
      return scan_hierarchical<T>(scan_tile_kogge_stone_double_buffered<T>, b, d_in, n, d_out, d_temp, temp_bytes,
                                  stream, who);
    case scan_variant::brent_kung:
      return scan_hierarchical<T>(scan_tile_brent_kung<T>, 2 * b, d_in, n, d_out, d_temp, temp_bytes, stream, who);
    case scan_variant::coarsened:
      return scan_hierarchical<T>(scan_tile_coarsened<T>, coarsened_tile, d_in, n, d_out, d_temp, temp_bytes, stream,
                                  who);
    case scan_variant::hierarchical:
      return scan_hierarchical<T>(scan_tile_hierarchical<T>, coarsened_tile, d_in, n, d_out, d_temp, temp_bytes,
                                  stream, who);
    case scan_variant::single_pass_domino:
      return scan_domino<T>(d_in, n, d_out, d_temp, temp_bytes, stream, who);
    case scan_variant::production:
      return ::lookback::inclusive_scan(d_temp, temp_bytes, d_in, d_out, ::lookback::sum{}, n, stream);
  }
  throw std::invalid_argument(std::string(who) + ": unknown variant " + std::to_string(static_cast<int>(variant)));
}

}  // namespace lookback::ladder
