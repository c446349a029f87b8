#pragma once
// Stream compaction for Hopper and later on the scan's look-ahead pipeline
// (primitives/device/lookahead_pipeline.cuh): one persistent block an SM, tiles (and their flags) brought
// into shared memory by bulk copies several tiles ahead of the warps that compact them, so DRAM reads
// never pause while a tile waits for its output offset. Roles:
//   load (one thread): the next tile id and its bulk copies;
//   reduce: each thread decides its run of consecutive items (an odd number, so a warp's reads of
//     shared memory fall on distinct banks) into the bits of one word, the block scans the counts,
//     and the tile's count is published at once;
//   look-ahead (one warp): kept items before the tile, from the running count of the block's previous
//     tile and the counts published between (tile/running_lookahead.cuh);
//   store: each thread reads its run into registers, then, once every run is read, writes its kept
//     items back over the stage in output order, shifted to the output's alignment (partition: the
//     rejected ones backwards from the stage's end), and one thread copies the compacted runs out by
//     bulk copies, a few items at their ends item by item.
// A warp compacting 32 items a ballot instead (kept items of consecutive lanes to consecutive output
// slots, no bulk copy) issued about eight times the instructions an item and ran at under half this
// speed (select/select_policy.cuh).
#include <lookback/algorithms/select/select_kernel.cuh>
#include <lookback/algorithms/select/selectors.cuh>
#include <lookback/primitives/device/lookahead_pipeline.cuh>
#include <lookback/primitives/operators.cuh>
#include <lookback/primitives/thread/bulk_copy.cuh>
#include <lookback/primitives/thread/vector16.cuh>
#include <lookback/primitives/tile/running_lookahead.cuh>
#include <lookback/primitives/tile/tile_id.cuh>
#include <lookback/primitives/warp/shuffle.cuh>
#include <lookback/primitives/warp/warp_scan.cuh>

#include <cstdint>
#include <type_traits>

namespace lookback::select::device {

/// What a selector stages beside the items: its flags, or nothing (a predicate reads the items).
template <class Selector>
struct staged_flags {
  using flag = unsigned char;
  static constexpr bool present = false;
  __host__ __device__ static const flag* source(const Selector&) { return nullptr; }
};
template <class Flag>
struct staged_flags<flags_selector<Flag>> {
  using flag = Flag;
  static constexpr bool present = true;
  __host__ __device__ static const Flag* source(const flags_selector<Flag>& s) { return s.d_flags; }
};

/// Items a stage of T holds: a tile, and room to shift the compacted runs to the output's alignment at
/// both ends.
template <class Policy, class T>
inline constexpr int select_stage_items = Policy::tile_items + 2 * thread::vector16<T>::size;

/// A stage's hand-overs: its barriers, the kept items before the tile and in it, each reduce warp's
/// count, and each thread's decisions (bit k: its item k is kept) and kept items before its run.
template <int Warps>
struct select_stage_control {
  lookback::device::lookahead::stage_sync sync;
  count_t prefix;
  count_t aggregate;
  int warp_kept[Warps];
  int thread_kept_before[Warps * warp::warp_size];
  unsigned long long thread_keep[Warps * warp::warp_size];
};

/// A thread's decisions, bit k for its item k, held as two 32-bit words: at an unrolled k, setting or
/// testing a bit is one 32-bit shift, where a 64-bit one is several (ncu found the deciding warps issuing
/// 18 instructions an item, and bounding select_if at 1% kept).
struct run_decisions {
  unsigned low = 0;
  unsigned high = 0;

  run_decisions() = default;
  __device__ __forceinline__ explicit run_decisions(unsigned long long bits)
      : low(static_cast<unsigned>(bits)), high(static_cast<unsigned>(bits >> 32)) {}
  __device__ __forceinline__ void set(int k, bool kept) {
    if (k < 32) low |= static_cast<unsigned>(kept) << k;
    else high |= static_cast<unsigned>(kept) << (k - 32);
  }
  __device__ __forceinline__ bool test(int k) const { return ((k < 32 ? low >> k : high >> (k - 32)) & 1u) != 0; }
  __device__ __forceinline__ unsigned long long bits() const { return static_cast<unsigned long long>(high) << 32 | low; }
};

/// Items of the run of ItemsPerThread starting at item `first` of a tile of `valid` items.
template <int ItemsPerThread>
__device__ __forceinline__ int items_in_run(int valid, int first) {
  return max(0, min(ItemsPerThread, valid - first));
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
/// By every thread `r` of the store role: items [0, count) of the shared `src` to `dst`, the span whose
/// output addresses are 16-byte aligned by one bulk copy of thread 0 (src lies at the same offset from
/// a 16-byte boundary as dst), the at most 2 x (vector - 1) others item by item.
template <class T>
__device__ __forceinline__ void copy_compacted_out(const T* src, T* dst, int count, int r) {
  constexpr int vec = thread::vector16<T>::size;
  const int misaligned = static_cast<int>(reinterpret_cast<std::uintptr_t>(dst) % thread::bulk_copy_alignment) /
                         static_cast<int>(sizeof(T));
  const int head = min(count, (vec - misaligned) % vec);
  const int body = (count - head) / vec * vec;
  if (r == 0 && body > 0)
    thread::bulk_store(dst + head, src + head, static_cast<unsigned>(body) * static_cast<unsigned>(sizeof(T)));
  if (r < head) dst[r] = src[r];
  const int tail = head + body + r - vec;
  if (r >= vec && r < 2 * vec && tail < count) dst[tail] = src[tail];
}
#endif

/// Launched with Policy::threads threads, at most one block an SM, select_lookahead_shared_bytes of
/// dynamic shared memory; d_in and the flags 16-byte aligned, d_out aligned to its items. Descriptors
/// and counter zeroed.
template <class Policy, bool Partition, class T, class Selector, class StatusArray>
__global__ void __launch_bounds__(Policy::threads, 1)
    select_lookahead_kernel(const T* d_in, Selector selector, T* d_out, std::int64_t* d_num_selected, std::int64_t n,
                            StatusArray tiles, unsigned* d_tile_counter) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace la = lookback::device::lookahead;
  using flags = staged_flags<Selector>;
  using Flag = typename flags::flag;
  constexpr int warps = Policy::warps;
  constexpr int role_threads = warps * warp::warp_size;
  constexpr int items_per_thread = Policy::items_per_thread;
  constexpr int tile_items = Policy::tile_items;
  constexpr int stages = Policy::stages;
  constexpr int stage_items_count = select_stage_items<Policy, T>;
  constexpr int vec = thread::vector16<T>::size;
  static_assert(items_per_thread <= 64, "a thread's decisions are the bits of one 64-bit word");
  static_assert(tile_items * sizeof(T) % thread::bulk_copy_alignment == 0 &&
                    tile_items * sizeof(Flag) % thread::bulk_copy_alignment == 0,
                "tiles must keep bulk copies aligned");
  using control = select_stage_control<warps>;
  __shared__ control ctl[stages];
  extern __shared__ __align__(128) unsigned char lookahead_stage_bytes[];
  T* const stage_items = reinterpret_cast<T*>(lookahead_stage_bytes);
  Flag* const stage_flags = reinterpret_cast<Flag*>(lookahead_stage_bytes + stages * stage_items_count * sizeof(T));

  const std::int64_t num_tiles = (n + tile_items - 1) / tile_items;
  const int warp_index = static_cast<int>(threadIdx.x) / warp::warp_size;
  const int lane = warp::lane_id();
  la::start_after_clearing(ctl, role_threads);

  if (warp_index < warps) {
    // Reduce: thread r decides items [r * items_per_thread, (r + 1) * items_per_thread) of each tile,
    // with its own copy of the selector (read through a reference, the kernel parameter went to local
    // memory and every decision waited on a load of it).
    const int r = static_cast<int>(threadIdx.x);
    const Selector own_selector = selector;
    const auto decide = [own_selector](const T& item) {
      if constexpr (flags::present) return false;
      else return static_cast<bool>(own_selector.pred(item));
    };
    la::for_each_loaded_tile(ctl, num_tiles, [&](int s, std::int64_t tile) {
      control& c = ctl[s];
      const int valid = tile::items_in_tile(tile, tile_items, n);
      const int first = r * items_per_thread;
      const T* const items = stage_items + s * stage_items_count + first;
      const Flag* const item_flags = stage_flags + s * tile_items + first;
      // The run's reads first, all in flight together, then the decisions: the role's few warps decide
      // every item of the SM, and no other warps hide a read's latency. Whole runs (all but the last
      // tile's) test no item against the run's end.
      const int in_run = valid == tile_items ? items_per_thread : items_in_run<items_per_thread>(valid, first);
      const auto decide_run = [&](auto whole_run) {
        constexpr bool whole = decltype(whole_run)::value;
        std::conditional_t<flags::present, Flag, T> read[items_per_thread];
#pragma unroll
        for (int k = 0; k < items_per_thread; ++k) {
          if constexpr (flags::present) read[k] = whole || k < in_run ? item_flags[k] : Flag{};
          else read[k] = whole || k < in_run ? items[k] : T{};
        }
        run_decisions decisions;
#pragma unroll
        for (int k = 0; k < items_per_thread; ++k) {
          bool kept_item;
          if constexpr (flags::present) kept_item = read[k] != Flag{};
          else kept_item = (whole || k < in_run) && decide(read[k]);  // never the predicate on a slot past the end
          decisions.set(k, kept_item && (whole || k < in_run));
        }
        return decisions.bits();
      };
      const unsigned long long keep =
          in_run == items_per_thread ? decide_run(std::true_type{}) : decide_run(std::false_type{});
      const int kept = __popcll(keep);
      const int inclusive = warp::inclusive_scan(kept, sum{});
      if (lane == warp::warp_size - 1) c.warp_kept[warp_index] = inclusive;
      // Stage s's counts are next written `stages` tiles later, past this barrier of the tiles between.
      thread::named_barrier(1, role_threads);
      int warp_before = 0;
#pragma unroll
      for (int w = 0; w < warps; ++w)
        if (w < warp_index) warp_before += c.warp_kept[w];
      c.thread_kept_before[r] = warp_before + inclusive - kept;
      c.thread_keep[r] = keep;
      if (r == role_threads - 1) {
        const auto aggregate = static_cast<count_t>(warp_before + inclusive);
        c.aggregate = aggregate;
        tiles.publish(tile, tile::status::aggregate, aggregate);
      }
      thread::barrier_arrive(&c.sync.reduced);
    });
  } else if (warp_index < 2 * warps) {
    // Store: the tile's kept items compacted over its stage (partition: the rejected ones backwards
    // from the stage's end), then copied out.
    const int r = static_cast<int>(threadIdx.x) - role_threads;
    int unreleased = -1;  // the stage whose outgoing copies may still be reading it
    la::for_each_tile_to_scan(ctl, num_tiles, [&](int s, std::int64_t tile) {
      control& c = ctl[s];
      const int valid = tile::items_in_tile(tile, tile_items, n);
      const int first = r * items_per_thread;
      T* const stage = stage_items + s * stage_items_count;
      T run[items_per_thread];
#pragma unroll
      for (int k = 0; k < items_per_thread; ++k)
        if (valid == tile_items || first + k < valid) run[k] = stage[first + k];
      const run_decisions keep(c.thread_keep[r]);
      const int kept_before = c.thread_kept_before[r];
      const count_t prefix = c.prefix;
      const int tile_kept = static_cast<int>(c.aggregate);
      T* const kept_out = d_out + prefix;
      // Every run read before any is overwritten.
      thread::named_barrier(2, role_threads);
      const int kept_shift =
          static_cast<int>(reinterpret_cast<std::uintptr_t>(kept_out) % thread::bulk_copy_alignment) /
          static_cast<int>(sizeof(T));
      // Slots as pointers: a bit test and a predicated store an item.
      T* kept_slot = stage + kept_shift + kept_before;
#pragma unroll
      for (int k = 0; k < items_per_thread; ++k)
        if (keep.test(k)) *kept_slot++ = run[k];
      // Rejected item i of the tile belongs at d_out[n - 1 - (rejected before the tile + i)]; it stages at
      // rejected_end - i, in the last vector of the stage, at that address's offset from 16 bytes.
      if constexpr (Partition) {
        const int tile_rejected = valid - tile_kept;
        const std::int64_t rejected_before = tile * tile_items - static_cast<std::int64_t>(prefix);
        T* const rejected_out = d_out + (n - rejected_before - tile_rejected);
        const int rejected_shift =
            static_cast<int>(reinterpret_cast<std::uintptr_t>(rejected_out) % thread::bulk_copy_alignment) /
            static_cast<int>(sizeof(T));
        const int rejected_end = stage_items_count - vec + (rejected_shift + tile_rejected + vec - 1) % vec;
        const int in_run = items_in_run<items_per_thread>(valid, first);
        const run_decisions rejected(~keep.bits() & (in_run >= 64 ? ~0ull : (1ull << in_run) - 1ull));
        T* rejected_slot = stage + rejected_end - (min(first, valid) - kept_before);
#pragma unroll
        for (int k = 0; k < items_per_thread; ++k)
          if (rejected.test(k)) *rejected_slot-- = run[k];
        thread::fence_shared_for_bulk_copies();
        thread::named_barrier(2, role_threads);
        copy_compacted_out(stage + kept_shift, kept_out, tile_kept, r);
        copy_compacted_out(stage + rejected_end - tile_rejected + 1, rejected_out, tile_rejected, r);
      } else {
        thread::fence_shared_for_bulk_copies();
        thread::named_barrier(2, role_threads);
        copy_compacted_out(stage + kept_shift, kept_out, tile_kept, r);
      }
      if (r == 0) {
        if (tile == num_tiles - 1) *d_num_selected = static_cast<std::int64_t>(prefix + c.aggregate);
        thread::bulk_commit();
        thread::bulk_wait_read<1>();
      }
      // Every store thread arrives, each releasing its own reads of the stage before this one, whose
      // copies have then read it.
      if (unreleased >= 0) thread::barrier_arrive(&ctl[unreleased].sync.free);
      unreleased = s;
    });
    if (r == 0) thread::bulk_wait_all();
  } else if (warp_index == 2 * warps) {
    if (lane == 0)
      la::load_tiles<stages, tile_items, stage_items_count>(ctl, stage_items, d_in, n, d_tile_counter, stage_flags,
                                                            flags::source(selector));
  } else {
    // Look-ahead: one warp.
    la::lookahead_prefixes<Policy::lookahead_chunks, Policy::retry_delay_ns>(ctl, tiles, num_tiles, count_t{0},
                                                                              sum{}, count_t{0});
  }
#else
  __trap();  // the launcher only launches this kernel where it was compiled for sm_90 or later
#endif
}

}  // namespace lookback::select::device
