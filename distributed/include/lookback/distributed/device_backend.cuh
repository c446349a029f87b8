#pragma once
// The local steps of the distributed algorithms on device arrays, with lookback's kernels, all on one
// stream (the GPU backend, with NCCL between ranks), and a second stream for the sort's exchange, so
// that it overlaps the merge. Nothing here waits for the host except compaction, whose count sizes
// the exchange that follows.
#include <lookback/algorithms/histogram.cuh>
#include <lookback/algorithms/radix_sort.cuh>
#include <lookback/algorithms/select.cuh>
#include <lookback/distributed/device/merge_kernels.cuh>
#include <lookback/distributed/device/rank_kernels.cuh>
#include <lookback/distributed/sort_options.hpp>
#include <lookback/distributed/splitters.hpp>
#include <lookback/primitives/device_buffer.cuh>
#include <lookback/primitives/event.cuh>
#include <lookback/primitives/reduce.cuh>
#include <lookback/primitives/scan.cuh>
#include <lookback/primitives/stream.cuh>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <type_traits>

namespace lookback::dist {

class device_backend {
 public:
  template <class T>
  using buffer = device_buffer<T>;
  static constexpr bool on_device = true;

  explicit device_backend(cudaStream_t stream) : stream_(stream) {}

  template <class T>
  [[nodiscard]] buffer<T> allocate(std::int64_t n) const {
    return buffer<T>(static_cast<std::size_t>(n), stream_);
  }
  [[nodiscard]] cudaStream_t stream() const { return stream_; }

  /// The exchange's stream, made on first use on the current device (the rank's). Its priority is
  /// the highest, so that NCCL's few blocks need not wait behind every pending block of the merge
  /// they run beside (measured level with a stream of default priority, within 1%, on two H100s).
  [[nodiscard]] cudaStream_t exchange_stream() const {
    if (!exchange_) exchange_.emplace(exchange_lane{cuda_stream(cuda_stream::highest_priority()), cuda_event()});
    return exchange_->stream;
  }
  /// The exchange enqueued from now on starts after the work stream's work so far.
  void exchange_waits_for_work() const {
    const cudaStream_t exchange = exchange_stream();  // makes the lane before its event is read
    wait_for(exchange, stream_, exchange_->event);
  }
  /// The work enqueued from now on starts after the exchange so far.
  void work_waits_for_exchange() const {
    const cudaStream_t exchange = exchange_stream();
    wait_for(stream_, exchange, exchange_->event);
  }

  /// Stream-ordered; the caller waits (communicator::sync_stream) before reading dst.
  template <class T>
  void copy_to_host(const T* src, T* dst, std::int64_t n) const {
    lookback::copy_to_host(dst, src, static_cast<std::size_t>(n), stream_);
  }
  template <class T>
  void copy_from_host(const T* src, T* dst, std::int64_t n) const {
    lookback::copy_to_device(dst, src, static_cast<std::size_t>(n), stream_);
  }

  /// *out = init op in[0] op ... op in[n - 1].
  template <class T, class Op>
  void reduce(const T* in, std::int64_t n, T* out, Op op, T init) const {
    lookback::reduce(in, out, n, op, init, stream_);
  }

  template <class T, class Op>
  void fold(const T* totals, int count, bool has_init, T init, Op op, T* out) const {
    device::fold_kernel<<<1, 1, 0, stream_>>>(totals, count, has_init, init, op, out);
    LOOKBACK_CUDA_TRY(cudaGetLastError());
  }

  /// From the carried prefix; *total receives the prefix combined with the slice (scan_carry.cuh).
  template <class T, class Op>
  void exclusive_scan(const T* in, T* out, std::int64_t n, const T* prefix, T* total, Op op) const {
    lookback::detail::with_temp_storage(allocator_, stream_, [&](void* d_temp, std::size_t& bytes) {
      lookback::exclusive_scan(d_temp, bytes, in, out, carried<T>{prefix, total}, op, n, stream_);
    });
  }
  /// Without a prefix (null), from in[0]: total is then unused.
  template <class T, class Op>
  void inclusive_scan(const T* in, T* out, std::int64_t n, const T* prefix, T* total, Op op) const {
    if (prefix == nullptr) return lookback::inclusive_scan(in, out, op, n, stream_);
    lookback::detail::with_temp_storage(allocator_, stream_, [&](void* d_temp, std::size_t& bytes) {
      lookback::inclusive_scan(d_temp, bytes, in, out, carried<T>{prefix, total}, op, n, stream_);
    });
  }

  template <class Sample, class Counter>
  void histogram_even(const Sample* samples, std::int64_t n, Counter* counts, int num_bins,
                      histogram::level_t<Sample> lower, histogram::level_t<Sample> upper) const {
    lookback::histogram_even(samples, n, counts, num_bins, lower, upper, stream_);
  }
  template <class Sample, class Counter>
  void histogram_range(const Sample* samples, std::int64_t n, Counter* counts, int num_bins,
                       const histogram::level_t<Sample>* levels) const {
    lookback::histogram_range(samples, n, counts, num_bins, levels, stream_);
  }

  template <class T, class Pred>
  std::int64_t select_if(const T* in, std::int64_t n, T* out, Pred pred) const {
    buffer<std::int64_t> kept(1, stream_);
    lookback::select_if(in, out, kept.data(), n, pred, stream_);
    return selected_count(kept.data(), stream_);
  }
  template <class T, class Flag>
  std::int64_t select_flagged(const T* in, const Flag* flags, std::int64_t n, T* out) const {
    buffer<std::int64_t> kept(1, stream_);
    lookback::select_flagged(in, flags, out, kept.data(), n, stream_);
    return selected_count(kept.data(), stream_);
  }

  template <bool Descending, class Key, class Value>
  void sort(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out, std::int64_t n,
            int begin_bit, int end_bit) const {
    lookback::detail::with_temp_storage(allocator_, stream_, [&](void* d_temp, std::size_t& bytes) {
      if constexpr (std::is_same_v<Value, no_values>) {
        radix::detail::sort_separate<Descending, Key, radix::no_value>(d_temp, bytes, keys_in, keys_out, nullptr,
                                                                       nullptr, n, begin_bit, end_bit, stream_);
      } else {
        radix::detail::sort_separate<Descending>(d_temp, bytes, keys_in, keys_out, values_in, values_out, n, begin_bit,
                                                 end_bit, stream_);
      }
    });
  }

  /// The stable merge of the sorted runs a[0, na) and b[0, nb) (values with them, unless Value is
  /// no_values) into keys_out; ties take a's key first: device/merge_kernels.cuh.
  template <bool Descending, class Key, class Value>
  void merge(const Key* a, const Value* a_values, std::int64_t na, const Key* b, const Value* b_values, std::int64_t nb,
             Key* keys_out, Value* values_out, int begin_bit, int end_bit) const {
    if (na + nb == 0) return;
    using policy = device::merge_policy<sizeof(Key), std::is_same_v<Value, no_values> ? 0 : sizeof(Value)>;
    const device::field_of<Key, Descending> field{begin_bit, detail::low_ones(end_bit - begin_bit)};
    const std::int64_t tiles = (na + nb + policy::tile_items - 1) / policy::tile_items;
    buffer<std::int64_t> splits(static_cast<std::size_t>(tiles) + 1, stream_);
    const int blocks = static_cast<int>(std::min<std::int64_t>((tiles + 256) / 256, 4096));
    device::merge_partition_kernel<policy><<<blocks, 256, 0, stream_>>>(a, na, b, nb, field, tiles, splits.data());
    LOOKBACK_CUDA_TRY(cudaGetLastError());
    device::merge_kernel<policy><<<static_cast<unsigned>(tiles), policy::block_threads, 0, stream_>>>(
        a, a_values, na, b, b_values, nb, field, splits.data(), keys_out, values_out);
    LOOKBACK_CUDA_TRY(cudaGetLastError());
  }

  template <bool Descending, class Key>
  void count_at_most(const Key* sorted, std::int64_t n, int begin_bit, int end_bit, const std::uint64_t* probes,
                     std::int64_t m, std::int64_t* counts) const {
    if (m == 0) return;
    const std::uint64_t mask = detail::low_ones(end_bit - begin_bit);
    const int blocks = static_cast<int>(std::min<std::int64_t>((m + 255) / 256, 1024));
    device::count_at_most_kernel<Descending><<<blocks, 256, 0, stream_>>>(sorted, n, begin_bit, mask, probes, m, counts);
    LOOKBACK_CUDA_TRY(cudaGetLastError());
  }

 private:
  struct exchange_lane {
    cuda_stream stream;
    cuda_event event;
  };
  cudaStream_t stream_;
  mutable stream_allocator allocator_;
  mutable std::optional<exchange_lane> exchange_;
};

}  // namespace lookback::dist
