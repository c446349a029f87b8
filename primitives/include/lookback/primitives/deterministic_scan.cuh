#pragma once
// Scans and reductions that give the same bits on every run, for every tile policy and on every GPU,
// for floating point too: pass lookback::deterministic first. The association is fixed by granules
// of 2048 items and windows of 32 granules (policy::deterministic_granule), never by the tile size,
// the SM count or timing, and cpu::deterministic_scan computes it bit for bit. Still one pass with
// look-back (about 2n bytes of traffic); the reduction is the same kernel without the stores, so it
// equals the scan's total.
//
//   lookback::exclusive_scan(lookback::deterministic, d_temp, bytes, d_in, d_out, 0.0f, lookback::sum{}, n, stream);
//
// The association, which the promise includes: a thread folds its run of 16 items left to right; a
// warp scans its 32 run totals Kogge-Stone (offsets 1, 2, 4, 8, 16); a granule folds its 4 warp
// totals in order (its aggregate). A window folds its granules' aggregates left to right (its
// aggregate; the fold of the granules before one is that granule's local prefix); the windows'
// aggregates fold left to right after the initial value (each window's prefix). Item i's result is
// its window's prefix, then its granule's local prefix, then the earlier warps of the granule
// (folded), then the warp's earlier runs (the Kogge-Stone value), then the run's items. The total (a
// reduction's result) is the fold of the initial value and every window's aggregate.
#include <lookback/primitives/allocator.cuh>
#include <lookback/primitives/detail/temp_layout.cuh>
#include <lookback/primitives/device/deterministic_scan_kernel.cuh>
#include <lookback/primitives/error.cuh>
#include <lookback/primitives/scan_carry.cuh>
#include <lookback/primitives/thread/vector16.cuh>
#include <lookback/primitives/tile/tile_status.cuh>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <stdexcept>

namespace lookback {

/// The tag that asks for the deterministic association.
struct deterministic_t {
  explicit deterministic_t() = default;
};
inline constexpr deterministic_t deterministic{};

namespace detail {

template <class T>
__global__ void store_value_kernel(T* d_out, T value) {
  *d_out = value;
}

/// The deterministic scan with an explicit tile policy (the tests run several; the bits are the same).
template <class Policy, bool Exclusive, class InputIt, class OutputIt, class Init, class Op>
void deterministic_scan_with_policy(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                                    OutputIt d_out, Init init, bool has_start, Op op, std::int64_t num_items,
                                    init_value_t<Init>* d_total, bool store, cudaStream_t stream) {
  using T = init_value_t<Init>;
  using status_array = tile::status_array<T, tile::default_descriptor<T>>;
  check_item_count(num_items, "lookback::deterministic scan");
  const std::int64_t tiles = (num_items + Policy::tile_items - 1) / Policy::tile_items;
  const std::int64_t granules = tiles * Policy::granules_per_tile;
  const std::int64_t windows = (granules + Policy::window_granules - 1) / Policy::window_granules;
  const temp_layout layout{sizeof(unsigned), status_array::bytes_for(granules), status_array::bytes_for(windows)};
  if (layout.answer_query(d_temp_storage, temp_storage_bytes, "lookback::deterministic scan")) return;
  if (num_items == 0) {
    // An empty sequence's total is its initial value (none without one: nothing to write).
    if (d_total == nullptr || !has_start) return;
    if constexpr (is_carried<Init>) {
      LOOKBACK_CUDA_TRY(cudaMemcpyAsync(d_total, init.d_prefix, sizeof(T), cudaMemcpyDeviceToDevice, stream));
    } else {
      store_value_kernel<<<1, 1, 0, stream>>>(d_total, init);
      LOOKBACK_CUDA_TRY(cudaGetLastError());
    }
    return;
  }
  bool aligned = false;
  if constexpr (thread::vectorizable<InputIt, T> && thread::vectorizable<OutputIt, T>)
    aligned = thread::aligned16(d_in) && thread::aligned16(d_out);
  LOOKBACK_CUDA_TRY(cudaMemsetAsync(d_temp_storage, 0, layout.total(), stream));
  device::deterministic_scan_kernel<Policy, Exclusive><<<static_cast<unsigned>(tiles), Policy::threads, 0, stream>>>(
      d_in, d_out, num_items, op, init, has_start, store, d_total, status_array(layout.part(d_temp_storage, 1), granules),
      status_array(layout.part(d_temp_storage, 2), windows),
      static_cast<unsigned*>(layout.part(d_temp_storage, 0)), aligned);
  LOOKBACK_CUDA_TRY(cudaGetLastError());
}

template <bool Exclusive, class InputIt, class OutputIt, class Init, class Op>
void deterministic_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, OutputIt d_out, Init init,
                        bool has_start, Op op, std::int64_t num_items, init_value_t<Init>* d_total, bool store,
                        cudaStream_t stream) {
  deterministic_scan_with_policy<policy::deterministic_scan<init_value_t<Init>>, Exclusive>(
      d_temp_storage, temp_storage_bytes, d_in, d_out, init, has_start, op, num_items, d_total, store, stream);
}

}  // namespace detail

/// out[i] = init op in[0] op ... op in[i-1], in the deterministic association.
template <class InputIt, class OutputIt, class T, class Op>
void exclusive_scan(deterministic_t, void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                    OutputIt d_out, T init, Op op, std::int64_t num_items, cudaStream_t stream = nullptr) {
  detail::deterministic_scan<true>(d_temp_storage, temp_storage_bytes, d_in, d_out, init, true, op, num_items,
                                   static_cast<T*>(nullptr), true, stream);
}

/// out[i] = in[0] op ... op in[i], in the deterministic association.
template <class InputIt, class OutputIt, class Op>
void inclusive_scan(deterministic_t, void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                    OutputIt d_out, Op op, std::int64_t num_items, cudaStream_t stream = nullptr) {
  using T = typename std::iterator_traits<InputIt>::value_type;
  detail::deterministic_scan<false>(d_temp_storage, temp_storage_bytes, d_in, d_out, identity_of<T>(op), false, op,
                                    num_items, static_cast<T*>(nullptr), true, stream);
}

/// One chunk of a longer sequence (scan_carry.cuh), for chunks that begin at multiples of the window
/// (policy::deterministic_granule::window_items, 65536 items): then the chunks together give the bits
/// of one scan of the whole. *carry.d_total is the scan's total (the fold of the prefix and the window
/// aggregates), the next chunk's prefix. A null carry.d_prefix starts from nothing: an inclusive
/// scan's first chunk (an exclusive scan's item 0 needs a start value, so there it is refused).
template <class InputIt, class OutputIt, class T, class Op>
void exclusive_scan(deterministic_t, void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                    OutputIt d_out, carried<T> carry, Op op, std::int64_t num_items, cudaStream_t stream = nullptr) {
  if (d_temp_storage != nullptr && carry.d_prefix == nullptr)  // a size query may leave it null
    throw std::invalid_argument("lookback::deterministic exclusive_scan: a carried chunk needs carry.d_prefix");
  detail::deterministic_scan<true>(d_temp_storage, temp_storage_bytes, d_in, d_out, carry, true, op, num_items,
                                   carry.d_total, true, stream);
}
template <class InputIt, class OutputIt, class T, class Op>
void inclusive_scan(deterministic_t, void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                    OutputIt d_out, carried<T> carry, Op op, std::int64_t num_items, cudaStream_t stream = nullptr) {
  detail::deterministic_scan<false>(d_temp_storage, temp_storage_bytes, d_in, d_out, carry, carry.d_prefix != nullptr,
                                    op, num_items, carry.d_total, true, stream);
}

/// One chunk of a longer reduction, at a window multiple as above: *carry.d_total = *carry.d_prefix
/// and the chunk's window aggregates, folded (the exclusive scan's total, without its stores).
template <class InputIt, class T, class Op>
void reduce(deterministic_t, void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, carried<T> carry,
            std::int64_t num_items, Op op, cudaStream_t stream = nullptr) {
  detail::deterministic_scan<true>(d_temp_storage, temp_storage_bytes, d_in, static_cast<T*>(nullptr), carry,
                                   carry.d_prefix != nullptr, op, num_items, carry.d_total, false, stream);
}

/// *d_out = init op in[0] op ... op in[n-1], in the deterministic association (the exclusive scan's
/// total, without its stores).
template <class InputIt, class T, class Op>
void reduce(deterministic_t, void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, T* d_out,
            std::int64_t num_items, Op op, T init, cudaStream_t stream = nullptr) {
  detail::deterministic_scan<true>(d_temp_storage, temp_storage_bytes, d_in, static_cast<T*>(nullptr), init, true, op,
                                   num_items, d_out, false, stream);
}

template <class InputIt, class OutputIt, class T, class Op, class Allocator = stream_allocator>
void exclusive_scan(deterministic_t tag, InputIt d_in, OutputIt d_out, T init, Op op, std::int64_t num_items,
                    cudaStream_t stream = nullptr, Allocator alloc = {}) {
  detail::with_temp_storage(alloc, stream, [&](void* d_temp, std::size_t& bytes) {
    exclusive_scan(tag, d_temp, bytes, d_in, d_out, init, op, num_items, stream);
  });
}

template <class InputIt, class OutputIt, class Op, class Allocator = stream_allocator>
void inclusive_scan(deterministic_t tag, InputIt d_in, OutputIt d_out, Op op, std::int64_t num_items,
                    cudaStream_t stream = nullptr, Allocator alloc = {}) {
  detail::with_temp_storage(alloc, stream, [&](void* d_temp, std::size_t& bytes) {
    inclusive_scan(tag, d_temp, bytes, d_in, d_out, op, num_items, stream);
  });
}

template <class InputIt, class T, class Op, class Allocator = stream_allocator>
void reduce(deterministic_t tag, InputIt d_in, T* d_out, std::int64_t num_items, Op op, T init,
            cudaStream_t stream = nullptr, Allocator alloc = {}) {
  detail::with_temp_storage(alloc, stream, [&](void* d_temp, std::size_t& bytes) {
    reduce(tag, d_temp, bytes, d_in, d_out, num_items, op, init, stream);
  });
}

}  // namespace lookback
