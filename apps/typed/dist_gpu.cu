// The typed distributed runs on the GPU backend. The backend's local steps go through the typed
// entry points that the single-GPU command already compiles (reduce, carried scan, histogram,
// compaction, sort), so that this file adds only the distributed glue and its small kernels to the
// build, not a second copy of every kernel instantiation.
#include "typed/dist_run.hpp"

#include <lookback/distributed/device_backend.cuh>

#include <cstring>
#include <stdexcept>

namespace lookback::typed::detail {
namespace {

template <class Op>
constexpr op_kind op_kind_of() {
  if constexpr (std::is_same_v<Op, lookback::sum>) return op_kind::sum;
  else if constexpr (std::is_same_v<Op, lookback::minimum>) return op_kind::min;
  else return op_kind::max;
}

/// lookback::dist::device_backend with its heavy steps through the typed entry points.
class typed_device_backend : public dist::device_backend {
 public:
  using device_backend::device_backend;

  /// From the identity (the distributed reduce) or from neutral_of (a scan's rank totals), the two
  /// starts device_backend's callers ask for.
  template <class T, class Op>
  void reduce(const T* in, std::int64_t n, T* out, Op op, T init) const {
    const T neutral = neutral_of<T>(op);
    const T identity = identity_of<T>(op);
    const bool from_neutral = std::memcmp(&init, &neutral, sizeof(T)) == 0;
    if (!from_neutral && std::memcmp(&init, &identity, sizeof(T)) != 0)
      throw std::logic_error("typed_device_backend::reduce starts from the identity or neutral_of only");
    with_temp([&](void* d_temp, std::size_t& bytes) {
      if (from_neutral) typed::reduce_slice(io::dtype_of<T>(), op_kind_of<Op>(), d_temp, bytes, in, out, n, stream());
      else typed::reduce(implementation::lookback, io::dtype_of<T>(), op_kind_of<Op>(), d_temp, bytes, in, out, n, stream());
    });
  }

  template <class T, class Op>
  void exclusive_scan(const T* in, T* out, std::int64_t n, const T* prefix, T* total, Op) const {
    carried_scan(scan_spec{io::dtype_of<T>(), op_kind_of<Op>(), false, {}}, in, out, n, prefix, total);
  }
  template <class T, class Op>
  void inclusive_scan(const T* in, T* out, std::int64_t n, const T* prefix, T* total, Op) const {
    const scan_spec spec{io::dtype_of<T>(), op_kind_of<Op>(), true, {}};
    if (prefix != nullptr) return carried_scan(spec, in, out, n, prefix, total);
    with_temp([&](void* d_temp, std::size_t& bytes) {
      typed::scan(implementation::lookback, spec, d_temp, bytes, in, out, n, stream());
    });
  }

  template <class Sample, class Counter>
  void histogram_even(const Sample* samples, std::int64_t n, Counter* counts, int num_bins,
                      histogram::level_t<Sample> lower, histogram::level_t<Sample> upper) const {
    const histogram_spec spec{io::dtype_of<Sample>(), sizeof(Counter) == 4 ? io::dtype::uint32 : io::dtype::uint64,
                              num_bins, static_cast<double>(lower), static_cast<double>(upper)};
    with_temp([&](void* d_temp, std::size_t& bytes) {
      typed::histogram_even(implementation::lookback, spec, d_temp, bytes, samples, n, counts, stream());
    });
  }

  template <class T>
  std::int64_t select_if(const T* in, std::int64_t n, T* out, compare_predicate<T> pred) const {
    const select_spec spec{io::dtype_of<T>(), false, pred.kind, load_scalar(io::dtype_of<T>(), &pred.value)};
    return select(spec, in, nullptr, n, out);
  }
  template <class T>
  std::int64_t select_flagged(const T* in, const std::uint8_t* flags, std::int64_t n, T* out) const {
    return select(select_spec{io::dtype_of<T>(), true, compare_kind::nonzero, {}}, in, flags, n, out);
  }

  template <bool Descending, class Key, class Value>
  void sort(const Key* keys_in, Key* keys_out, const Value* values_in, Value* values_out, std::int64_t n,
            int begin_bit, int end_bit) const {
    const int value_bytes = std::is_same_v<Value, dist::no_values> ? 0 : static_cast<int>(sizeof(Value));
    const sort_spec spec{io::dtype_of<Key>(), value_bytes, Descending, begin_bit, end_bit};
    with_temp([&](void* d_temp, std::size_t& bytes) {
      typed::sort(implementation::lookback, spec, d_temp, bytes, keys_in, keys_out, values_in, values_out, n, stream());
    });
  }

 private:
  template <class Call>
  void with_temp(Call&& call) const {
    stream_allocator alloc;
    lookback::detail::with_temp_storage(alloc, stream(), call);
  }

  template <class T>
  void carried_scan(const scan_spec& spec, const T* in, T* out, std::int64_t n, const T* prefix, T* total) const {
    with_temp([&](void* d_temp, std::size_t& bytes) {
      scan_carried(spec, d_temp, bytes, in, out, prefix, total, n, stream());
    });
  }

  template <class T>
  std::int64_t select(const select_spec& spec, const T* in, const std::uint8_t* flags, std::int64_t n, T* out) const {
    device_buffer<std::int64_t> kept(1, stream());
    with_temp([&](void* d_temp, std::size_t& bytes) {
      typed::select(implementation::lookback, spec, d_temp, bytes, in, flags, out, kept.data(), n, stream());
    });
    return selected_count(kept.data(), stream());
  }
};

}  // namespace

void dist_reduce_gpu(const dist_rank& r, io::dtype type, op_kind op, const void* h_in, std::int64_t n, void* h_result) {
  typed_device_backend backend(r.stream);
  reduce_on(backend, r.comm, type, op, h_in, n, h_result);
}
void dist_scan_gpu(const dist_rank& r, const scan_spec& spec, const void* h_in, void* h_out, std::int64_t n) {
  typed_device_backend backend(r.stream);
  scan_on(backend, r.comm, spec, h_in, h_out, n);
}
void dist_histogram_gpu(const dist_rank& r, const histogram_spec& spec, const void* h_samples, std::int64_t n,
                        void* h_counts) {
  typed_device_backend backend(r.stream);
  histogram_on(backend, r.comm, spec, h_samples, n, h_counts);
}
dist_kept dist_select_gpu(const dist_rank& r, const select_spec& spec, const void* h_values, const std::uint8_t* h_flags,
                          std::int64_t n) {
  typed_device_backend backend(r.stream);
  return select_on(backend, r.comm, spec, h_values, h_flags, n);
}
dist_sorted dist_sort_gpu(const dist_rank& r, const sort_spec& spec, const void* h_keys, const void* h_values,
                          std::int64_t n) {
  typed_device_backend backend(r.stream);
  return sort_on(backend, r.comm, spec, h_keys, h_values, n);
}

}  // namespace lookback::typed::detail
