#pragma once
// The local steps of the distributed algorithms on host arrays (the CPU backend, with MPI between
// ranks): the library's CPU references, sequential, in the element type.
#include <lookback/algorithms/cpu/histogram.hpp>
#include <lookback/algorithms/cpu/radix_sort.hpp>
#include <lookback/distributed/sort_options.hpp>
#include <lookback/primitives/cpu/reduce.hpp>
#include <lookback/primitives/cpu/scan.hpp>
#include <lookback/primitives/operators.cuh>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace lookback::dist {

class host_backend {
 public:
  template <class T>
  using buffer = std::vector<T>;
  static constexpr bool on_device = false;

  template <class T>
  [[nodiscard]] buffer<T> allocate(std::int64_t n) const {
    return buffer<T>(static_cast<std::size_t>(n));
  }
  [[nodiscard]] cudaStream_t stream() const { return nullptr; }
  /// Every step is done when it returns: one lane, nothing to order.
  [[nodiscard]] cudaStream_t exchange_stream() const { return nullptr; }
  void exchange_waits_for_work() const {}
  void work_waits_for_exchange() const {}

  template <class T>
  void copy_to_host(const T* src, T* dst, std::int64_t n) const {
    std::copy_n(src, n, dst);
  }
  template <class T>
  void copy_from_host(const T* src, T* dst, std::int64_t n) const {
    std::copy_n(src, n, dst);
  }

  /// *out = init op in[0] op ... op in[n - 1].
  template <class T, class Op>
  void reduce(const T* in, std::int64_t n, T* out, Op op, T init) const {
    *out = cpu::reduce<T>(in, n, op, init);
  }

  /// *out = init op totals[0] op ... op totals[count - 1], or without init from totals[0] (count > 0).
  template <class T, class Op>
  void fold(const T* totals, int count, bool has_init, T init, Op op, T* out) const {
    const auto f = cpu::wrapping_op<T>(op);
    T acc = has_init ? init : totals[0];
    for (int i = has_init ? 0 : 1; i < count; ++i) acc = f(acc, totals[i]);
    *out = acc;
  }

  /// out[i] = *prefix op in[0] op ... op in[i - 1]; `total` is the device backend's carried slot,
  /// which the sequential scan has no use for.
  template <class T, class Op>
  void exclusive_scan(const T* in, T* out, std::int64_t n, const T* prefix, T* /*total*/, Op op) const {
    cpu::exclusive_scan<T>(in, out, n, *prefix, op);
  }
  /// out[i] = *prefix op in[0] op ... op in[i], or without a prefix (null) from in[0].
  template <class T, class Op>
  void inclusive_scan(const T* in, T* out, std::int64_t n, const T* prefix, T* /*total*/, Op op) const {
    if (prefix == nullptr) return cpu::inclusive_scan<T>(in, out, n, op);
    const auto f = cpu::wrapping_op<T>(op);
    T running = *prefix;
    for (std::int64_t i = 0; i < n; ++i) out[i] = running = f(running, in[i]);
  }

  template <class Sample, class Counter>
  void histogram_even(const Sample* samples, std::int64_t n, Counter* counts, int num_bins,
                      histogram::level_t<Sample> lower, histogram::level_t<Sample> upper) const {
    const auto bins = cpu::histogram<Counter>(samples, n, num_bins, histogram::even_bins<Sample>::make(num_bins, lower, upper));
    std::copy(bins.begin(), bins.end(), counts);
  }
  template <class Sample, class Counter>
  void histogram_range(const Sample* samples, std::int64_t n, Counter* counts, int num_bins,
                       const histogram::level_t<Sample>* levels) const {
    histogram::check_bins(num_bins);
    const auto bins = cpu::histogram<Counter>(samples, n, num_bins, histogram::range_bins<Sample>{levels, num_bins + 1});
    std::copy(bins.begin(), bins.end(), counts);
  }

  template <class T, class Pred>
  std::int64_t select_if(const T* in, std::int64_t n, T* out, Pred pred) const {
    return std::copy_if(in, in + n, out, pred) - out;
  }
  template <class T, class Flag>
  std::int64_t select_flagged(const T* in, const Flag* flags, std::int64_t n, T* out) const {
    std::int64_t kept = 0;
    for (std::int64_t i = 0; i < n; ++i)
      if (flags[i] != Flag{0}) out[kept++] = in[i];
    return kept;
  }

  /// Stable, by bits [begin_bit, end_bit) of the ordered pattern; Value no_values for keys alone.
  template <bool Descending, class Key, class Value>
  void sort(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out, std::int64_t n,
            int begin_bit, int end_bit) const {
    const std::vector<std::int64_t> order = cpu::stable_sort_order<Key, Descending>(keys_in, n, begin_bit, end_bit);
    for (std::size_t i = 0; i < order.size(); ++i) {
      keys_out[i] = keys_in[order[i]];
      if constexpr (!std::is_same_v<Value, no_values>) values_out[i] = values_in[order[i]];
    }
  }

  /// The stable merge of the sorted runs a[0, na) and b[0, nb) (values with them, unless Value is
  /// no_values) into keys_out; ties take a's key first.
  template <bool Descending, class Key, class Value>
  void merge(const Key* a, const Value* a_values, std::int64_t na, const Key* b, const Value* b_values, std::int64_t nb,
             Key* keys_out, Value* values_out, int begin_bit, int end_bit) const {
    const auto field = [&](const Key& k) { return cpu::sort_field<Key, Descending>(k, begin_bit, end_bit); };
    std::int64_t i = 0, j = 0;
    for (std::int64_t at = 0; at < na + nb; ++at) {
      const bool take_a = j == nb || (i < na && field(a[i]) <= field(b[j]));
      keys_out[at] = take_a ? a[i] : b[j];
      if constexpr (!std::is_same_v<Value, no_values>) values_out[at] = take_a ? a_values[i] : b_values[j];
      (take_a ? i : j) += 1;
    }
  }

  /// counts[q] = how many of the sorted keys have a sort field (cpu::sort_field) at most probes[q].
  template <bool Descending, class Key>
  void count_at_most(const Key* sorted, std::int64_t n, int begin_bit, int end_bit, const std::uint64_t* probes,
                     std::int64_t m, std::int64_t* counts) const {
    for (std::int64_t q = 0; q < m; ++q)
      counts[q] = std::partition_point(sorted, sorted + n, [&](const Key& k) {
                    return cpu::sort_field<Key, Descending>(k, begin_bit, end_bit) <= probes[q];
                  }) - sorted;
  }
};

}  // namespace lookback::dist
