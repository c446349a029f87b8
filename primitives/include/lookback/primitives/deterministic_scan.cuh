#pragma once
// Scans and reductions that give the same bits on every run, for every tile policy and on every GPU,
// for floating point too: pass lookback::deterministic first. The association is fixed by granules
// of 2176 items and windows of 32 granules (policy::deterministic_granule), never by the tile size,
// the SM count or timing, and cpu::deterministic_scan computes it bit for bit. Still one pass with
// look-back (about 2n bytes of traffic); the reduction gives the scan's total (small ones on the same
// kernel without its stores). On Hopper and later, large scans of aligned arrays run on the look-ahead
// pipeline of the default scan (device/deterministic_scan_lookahead_kernel.cuh), and large reductions
// on the same pipeline without the scan's roles (device/deterministic_reduce_lookahead_kernel.cuh):
// the same bits.
//
//   lookback::exclusive_scan(lookback::deterministic, d_temp, bytes, d_in, d_out, 0.0f, lookback::sum{}, n, stream);
//
// The association, which the promise includes: a thread folds its run of 17 items left to right; a
// warp scans its 32 run totals Kogge-Stone (offsets 1, 2, 4, 8, 16); a granule folds its 4 warp
// totals in order (its aggregate). A window folds its granules' aggregates left to right (its
// aggregate; the fold of the granules before one is that granule's local prefix); the windows'
// aggregates fold left to right after the initial value (each window's prefix). Item i's result is
// its window's prefix, then its granule's local prefix, then the earlier warps of the granule
// (folded), then the warp's earlier runs (the Kogge-Stone value), then the run's items. The total (a
// reduction's result) is the fold of the initial value and every window's aggregate.
//
// What the promise leaves out: a NaN's payload bits (the GPU's arithmetic makes one canonical NaN),
// and an operator that nvcc may contract differently from the host compiler. nvcc fuses a * b + c
// into one FMA by default (-fmad=true) where x86-64 host code rounds twice, so an operator that
// multiplies and adds must say which it means (__fmaf_rn, or __fmul_rn and __fadd_rn, as the tests'
// affine operator does) for the CPU reference to match it.
#include <lookback/primitives/allocator.cuh>
#include <lookback/primitives/detail/clear_then_launch.cuh>
#include <lookback/primitives/detail/scan_lookahead.cuh>
#include <lookback/primitives/detail/temp_layout.cuh>
#include <lookback/primitives/device/deterministic_scan_kernel.cuh>
#include <lookback/primitives/error.cuh>
#include <lookback/primitives/scan_carry.cuh>
#include <lookback/primitives/thread/vector16.cuh>
#include <lookback/primitives/tile/tile_status.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <string>
#include <type_traits>

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

/// An empty sequence's total is its initial value (none without one: nothing to write).
template <class Init>
void store_empty_total(const Init& init, bool has_start, init_value_t<Init>* d_total, cudaStream_t stream) {
  using T = init_value_t<Init>;
  if (d_total == nullptr || !has_start) return;
  if constexpr (is_carried<Init>) {
    LOOKBACK_CUDA_TRY(cudaMemcpyAsync(d_total, init.d_prefix, sizeof(T), cudaMemcpyDeviceToDevice, stream));
  } else {
    store_value_kernel<<<1, 1, 0, stream>>>(d_total, init);
    LOOKBACK_CUDA_TRY(cudaGetLastError());
  }
}

/// The deterministic scan with an explicit tile policy (the tests run several; the bits are the same):
/// a deterministic_scan_config; a deterministic_scan_lookahead_config, which needs Hopper or later,
/// aligned arrays and stores; or, for the reduction (no stores, a total), a
/// deterministic_reduce_lookahead_config, which needs Hopper or later and an aligned array.
template <class Policy, bool Exclusive, class InputIt, class OutputIt, class Init, class Op>
void deterministic_scan_with_policy(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                                    OutputIt d_out, Init init, bool has_start, Op op, std::int64_t num_items,
                                    init_value_t<Init>* d_total, bool store, cudaStream_t stream) {
  using T = init_value_t<Init>;
  check_item_count(num_items, "lookback::deterministic scan");
  if constexpr (is_lookahead_policy<Policy>) {
    static_assert(lookahead_candidate<InputIt, OutputIt, T>, "the pipeline takes arrays of 4- or 8-byte items");
    constexpr bool reduces = is_reduce_lookahead_policy<Policy>;
    const char* const what = reduces ? "lookback::deterministic reduce" : "lookback::deterministic scan";
    const temp_layout layout = deterministic_scan_layout<Policy, T>(num_items);
    if (layout.answer_query(d_temp_storage, temp_storage_bytes, what)) return;
    if (num_items == 0) return store_empty_total(init, has_start, d_total, stream);
    if (store == reduces || !deterministic_pipeline_applies<Policy, Exclusive, T, Init, Op>(d_in, d_out))
      throw std::invalid_argument(std::string(what) +
                                  (reduces ? ": the pipelined policy needs sm_90 or later and a 16-byte aligned "
                                             "array, and makes no stores"
                                           : ": the pipelined policy needs sm_90 or later, stores and 16-byte "
                                             "aligned arrays"));
    deterministic_pipeline<Policy, Exclusive>(d_temp_storage, d_in, d_out, init, has_start, op, num_items, d_total, 0,
                                              stream);
  } else {
    using status_array = lookahead_status_array<T>;
    const std::int64_t tiles = tile_count<Policy>(num_items);
    const deterministic_descriptors d = deterministic_descriptor_counts<Policy>(num_items);
    const temp_layout layout = deterministic_scan_layout<Policy, T>(num_items);
    if (layout.answer_query(d_temp_storage, temp_storage_bytes, "lookback::deterministic scan")) return;
    if (num_items == 0) return store_empty_total(init, has_start, d_total, stream);
    const bool aligned = thread::vector_tiles<T>(d_in, d_out);
    clear_then_launch(
        layout, d_temp_storage,
        device::deterministic_scan_kernel<Policy, Exclusive, InputIt, OutputIt, Init, T*, Op, status_array>,
        dim3(static_cast<unsigned>(tiles)), dim3(Policy::threads), 0, stream, d_in, d_out, num_items, op, init,
        has_start, store, d_total, status_array(layout.part(d_temp_storage, 1), d.granules),
        status_array(layout.part(d_temp_storage, 2), d.windows), static_cast<unsigned*>(layout.part(d_temp_storage, 0)),
        aligned);
  }
}

/// The default policy, or where it applies (Hopper and later, aligned arrays of 4- and 8-byte items,
/// scans from lookahead_min_items items on, reductions from reduce_lookahead_min_items) the pipelined
/// one; the bits are the same. `Store` false: the total alone (the reduction), so that a scan never
/// compiles the reduction's pipeline, nor a reduction the scan's.
template <bool Exclusive, bool Store, class InputIt, class OutputIt, class Init, class Op>
void deterministic_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, OutputIt d_out, Init init,
                        bool has_start, Op op, std::int64_t num_items, init_value_t<Init>* d_total,
                        cudaStream_t stream) {
  using T = init_value_t<Init>;
  using policies = policy::deterministic_scan<T>;
  if (d_temp_storage != nullptr) {  // a size query may leave the arrays null
    check_array(d_in, num_items, "lookback::deterministic scan", "d_in");
    if constexpr (Store) check_array(d_out, num_items, "lookback::deterministic scan", "d_out");
  }
  const auto look_back = [&](void* d_temp, std::size_t& bytes) {
    deterministic_scan_with_policy<policies, Exclusive>(d_temp, bytes, d_in, d_out, init, has_start, op, num_items,
                                                        d_total, Store, stream);
  };
  if constexpr (lookahead_candidate<InputIt, OutputIt, T>) {
    using pipeline = std::conditional_t<Store, typename policies::lookahead, typename policies::reduce_lookahead>;
    constexpr std::int64_t min_items = Store ? policies::lookahead_min_items : policies::reduce_lookahead_min_items;
    if (num_items >= min_items) {
      if (d_temp_storage == nullptr) {  // answers for either kernel: the call may then take either
        look_back(nullptr, temp_storage_bytes);
        temp_storage_bytes = std::max(temp_storage_bytes, deterministic_scan_layout<pipeline, T>(num_items).total());
        return;
      }
      if (deterministic_pipeline_applies<pipeline, Exclusive, T, Init, Op>(d_in, d_out))
        return deterministic_scan_with_policy<pipeline, Exclusive>(d_temp_storage, temp_storage_bytes, d_in, d_out,
                                                                   init, has_start, op, num_items, d_total, Store,
                                                                   stream);
    }
  }
  look_back(d_temp_storage, temp_storage_bytes);
}

}  // namespace detail

/// out[i] = init op in[0] op ... op in[i-1], in the deterministic association.
template <class InputIt, class OutputIt, class T, class Op>
void exclusive_scan(deterministic_t, void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                    OutputIt d_out, T init, Op op, std::int64_t num_items, cudaStream_t stream = nullptr) {
  detail::deterministic_scan<true, true>(d_temp_storage, temp_storage_bytes, d_in, d_out, init, true, op, num_items,
                                         static_cast<T*>(nullptr), stream);
}

/// out[i] = in[0] op ... op in[i], in the deterministic association.
template <class InputIt, class OutputIt, class Op>
void inclusive_scan(deterministic_t, void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                    OutputIt d_out, Op op, std::int64_t num_items, cudaStream_t stream = nullptr) {
  using T = typename std::iterator_traits<InputIt>::value_type;
  detail::deterministic_scan<false, true>(d_temp_storage, temp_storage_bytes, d_in, d_out, neutral_of<T>(op), false, op,
                                          num_items, static_cast<T*>(nullptr), stream);
}

/// One chunk of a longer sequence (scan_carry.cuh), for chunks that begin at multiples of the window
/// (policy::deterministic_granule::window_items, 69632 items): then the chunks together give the bits
/// of one scan of the whole. *carry.d_total is the scan's total (the fold of the prefix and the window
/// aggregates), the next chunk's prefix. A null carry.d_prefix starts from nothing: an inclusive
/// scan's first chunk (an exclusive scan's item 0 needs a start value, so there it is refused).
template <class InputIt, class OutputIt, class T, class Op>
void exclusive_scan(deterministic_t, void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                    OutputIt d_out, carried<T> carry, Op op, std::int64_t num_items, cudaStream_t stream = nullptr) {
  if (d_temp_storage != nullptr && carry.d_prefix == nullptr)  // a size query may leave it null
    throw std::invalid_argument("lookback::deterministic exclusive_scan: a carried chunk needs carry.d_prefix");
  if (d_temp_storage != nullptr) detail::refuse_shared_carry_slot(carry, "lookback::deterministic exclusive_scan");
  detail::deterministic_scan<true, true>(d_temp_storage, temp_storage_bytes, d_in, d_out, carry, true, op, num_items,
                                         carry.d_total, stream);
}
template <class InputIt, class OutputIt, class T, class Op>
void inclusive_scan(deterministic_t, void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in,
                    OutputIt d_out, carried<T> carry, Op op, std::int64_t num_items, cudaStream_t stream = nullptr) {
  if (d_temp_storage != nullptr) detail::refuse_shared_carry_slot(carry, "lookback::deterministic inclusive_scan");
  detail::deterministic_scan<false, true>(d_temp_storage, temp_storage_bytes, d_in, d_out, carry,
                                          carry.d_prefix != nullptr, op, num_items, carry.d_total, stream);
}

/// One chunk of a longer reduction, at a window multiple as above: *carry.d_total = *carry.d_prefix
/// and the chunk's window aggregates, folded (the exclusive scan's total, without its stores).
template <class InputIt, class T, class Op>
void reduce(deterministic_t, void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, carried<T> carry,
            std::int64_t num_items, Op op, cudaStream_t stream = nullptr) {
  if (d_temp_storage != nullptr) detail::refuse_shared_carry_slot(carry, "lookback::deterministic reduce");
  detail::deterministic_scan<true, false>(d_temp_storage, temp_storage_bytes, d_in, static_cast<T*>(nullptr), carry,
                                          carry.d_prefix != nullptr, op, num_items, carry.d_total, stream);
}

/// *d_out = init op in[0] op ... op in[n-1], in the deterministic association (the exclusive scan's
/// total, without its stores).
template <class InputIt, class T, class Op>
void reduce(deterministic_t, void* d_temp_storage, std::size_t& temp_storage_bytes, InputIt d_in, T* d_out,
            std::int64_t num_items, Op op, T init, cudaStream_t stream = nullptr) {
  if (d_temp_storage != nullptr) detail::check_array(d_out, 1, "lookback::deterministic reduce", "d_out");
  detail::deterministic_scan<true, false>(d_temp_storage, temp_storage_bytes, d_in, static_cast<T*>(nullptr), init, true,
                                          op, num_items, d_out, stream);
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
