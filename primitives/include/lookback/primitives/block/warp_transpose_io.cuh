#pragma once
// Tile loads and stores that are coalesced in global memory (warp-striped: lane l touches items l,
// l+32, ...) but hand each thread a run of consecutive items (blocked), as a sequential per-thread
// scan needs. The transposition goes through a per-warp shared-memory region padded by one item every
// 32, so that both the striped and the blocked accesses are free of bank conflicts for 4-byte items.
// A store may follow a load on the same storage (load ends with __syncwarp); a load after a store
// needs a __syncwarp() first.
#include <lookback/primitives/thread/vector16.cuh>
#include <lookback/primitives/warp/shuffle.cuh>

#include <cstdint>

namespace lookback::block {

/// Item i of a shared-memory array padded by one item every 32: lanes whose items lie a multiple of
/// 32 apart (a thread's run of consecutive items, a warp-striped row) then touch distinct banks.
__host__ __device__ constexpr int bank_padded(int i) { return i + i / warp::warp_size; }

template <class T, int Threads, int ItemsPerThread>
struct warp_transpose_io {
  static constexpr int warps = Threads / warp::warp_size;
  static constexpr int warp_items = warp::warp_size * ItemsPerThread;
  static constexpr int padded_warp_items = warp_items + warp_items / warp::warp_size;
  static constexpr int tile_items = Threads * ItemsPerThread;

  struct storage {
    T items[warps][padded_warp_items];
  };

  __device__ static int warp_index() { return static_cast<int>(threadIdx.x) / warp::warp_size; }

  using vec = thread::vector16<T>;
  /// Whether a full tile of 16-byte aligned `It` may move as 16-byte vectors, still warp-striped
  /// (lane l takes vectors l, l + 32, ...: 512 contiguous bytes per warp instruction).
  template <class It>
  static constexpr bool vector_capable = thread::vectorizable<It, T> && ItemsPerThread % vec::size == 0;

  /// Keeps a thread's items in its warp's row while the warp does other work (between a load and a
  /// store; conflict-free), so that they need no registers meanwhile; take_back returns them.
  __device__ static void set_aside(const T (&items)[ItemsPerThread], storage& s) {
#pragma unroll
    for (int k = 0; k < ItemsPerThread; ++k) s.items[warp_index()][k * warp::warp_size + warp::lane_id()] = items[k];
  }
  __device__ static void take_back(T (&items)[ItemsPerThread], const storage& s) {
#pragma unroll
    for (int k = 0; k < ItemsPerThread; ++k) items[k] = s.items[warp_index()][k * warp::warp_size + warp::lane_id()];
  }

  /// Loads the `valid` first items of the tile at `in`; missing items become `fill`. `vectors`: the
  /// tile's address is 16-byte aligned, so full tiles may use vector loads.
  template <class InputIt>
  __device__ static void load(InputIt in, int valid, T (&items)[ItemsPerThread], const T& fill, storage& s,
                              bool vectors = false) {
    const int lane = warp::lane_id();
    const int warp_base = warp_index() * warp_items;
    T* region = s.items[warp_index()];
    if constexpr (vector_capable<InputIt>) vectors = vectors && valid >= tile_items;
    else vectors = false;
    if (vectors) {
      if constexpr (vector_capable<InputIt>) {
        const vec* d_vec = reinterpret_cast<const vec*>(in + warp_base);
#pragma unroll
        for (int k = 0; k < ItemsPerThread / vec::size; ++k) {
          const vec v = d_vec[k * warp::warp_size + lane];
#pragma unroll
          for (int c = 0; c < vec::size; ++c)
            region[bank_padded((k * warp::warp_size + lane) * vec::size + c)] = v.items[c];
        }
      }
    } else if (valid >= tile_items) {
#pragma unroll
      for (int k = 0; k < ItemsPerThread; ++k)
        region[bank_padded(k * warp::warp_size + lane)] = in[warp_base + k * warp::warp_size + lane];
    } else {
#pragma unroll
      for (int k = 0; k < ItemsPerThread; ++k) {
        const int i = warp_base + k * warp::warp_size + lane;
        region[bank_padded(k * warp::warp_size + lane)] = i < valid ? T(in[i]) : fill;
      }
    }
    __syncwarp();
#pragma unroll
    for (int k = 0; k < ItemsPerThread; ++k) items[k] = region[bank_padded(lane * ItemsPerThread + k)];
    // The caller may store through the same region next.
    __syncwarp();
  }

  /// Stores the `valid` first items of the tile at `out` (`vectors` as for load).
  template <class OutputIt>
  __device__ static void store(OutputIt out, int valid, const T (&items)[ItemsPerThread], storage& s,
                               bool vectors = false) {
    const int lane = warp::lane_id();
    const int warp_base = warp_index() * warp_items;
    T* region = s.items[warp_index()];
#pragma unroll
    for (int k = 0; k < ItemsPerThread; ++k) region[bank_padded(lane * ItemsPerThread + k)] = items[k];
    __syncwarp();
    if constexpr (vector_capable<OutputIt>) vectors = vectors && valid >= tile_items;
    else vectors = false;
    if (vectors) {
      if constexpr (vector_capable<OutputIt>) {
        vec* d_vec = reinterpret_cast<vec*>(out + warp_base);
#pragma unroll
        for (int k = 0; k < ItemsPerThread / vec::size; ++k) {
          vec v;
#pragma unroll
          for (int c = 0; c < vec::size; ++c)
            v.items[c] = region[bank_padded((k * warp::warp_size + lane) * vec::size + c)];
          d_vec[k * warp::warp_size + lane] = v;
        }
      }
    } else if (valid >= tile_items) {
#pragma unroll
      for (int k = 0; k < ItemsPerThread; ++k)
        out[warp_base + k * warp::warp_size + lane] = region[bank_padded(k * warp::warp_size + lane)];
    } else {
#pragma unroll
      for (int k = 0; k < ItemsPerThread; ++k) {
        const int i = warp_base + k * warp::warp_size + lane;
        if (i < valid) out[i] = region[bank_padded(k * warp::warp_size + lane)];
      }
    }
  }
};

}  // namespace lookback::block
