#pragma once
// The typed distributed runs, written once for either backend: the rank's host items to the backend's
// memory, the lookback::dist algorithm, the result back to host memory.
#include "typed/dist_ops.hpp"
#include "typed/histogram_visit.hpp"
#include "typed/select_predicate.hpp"
#include "typed/sort_visit.hpp"
#include "typed/visit.hpp"

#include <lookback/distributed/histogram.hpp>
#include <lookback/distributed/reduce.hpp>
#include <lookback/distributed/scan.hpp>
#include <lookback/distributed/select.hpp>
#include <lookback/distributed/sort.hpp>

#include <type_traits>

namespace lookback::typed::detail {

template <class T, class Backend>
auto upload(Backend& backend, const void* h_items, std::int64_t n) {
  auto items = backend.template allocate<T>(n);
  backend.copy_from_host(static_cast<const T*>(h_items), items.data(), n);
  return items;
}

template <class T, class Backend>
void download(Backend& backend, dist::communicator& comm, const T* items, std::int64_t n, void* h_out) {
  backend.copy_to_host(items, static_cast<T*>(h_out), n);
  comm.sync_stream(backend.stream());
}

/// n items of the backend's memory as host bytes.
template <class T, class Backend>
std::vector<std::byte> download_bytes(Backend& backend, dist::communicator& comm, const T* items, std::int64_t n) {
  std::vector<std::byte> out(static_cast<std::size_t>(n) * sizeof(T));
  download(backend, comm, items, n, out.data());
  return out;
}

template <class Backend>
void reduce_on(Backend& backend, dist::communicator& comm, io::dtype type, op_kind op, const void* h_in, std::int64_t n,
               void* h_result) {
  visit_numeric(type, [&](auto zero) {
    using T = decltype(zero);
    visit_op(op, [&](auto o) {
      const auto in = upload<T>(backend, h_in, n);
      auto result = backend.template allocate<T>(1);
      dist::reduce(backend, comm, in.data(), n, result.data(), o);
      download(backend, comm, result.data(), 1, h_result);
    });
  });
}

template <class Backend>
void scan_on(Backend& backend, dist::communicator& comm, const scan_spec& spec, const void* h_in, void* h_out,
             std::int64_t n) {
  visit_numeric(spec.type, [&](auto zero) {
    using T = decltype(zero);
    visit_op(spec.op, [&](auto o) {
      const auto in = upload<T>(backend, h_in, n);
      auto out = backend.template allocate<T>(n);
      if (spec.inclusive) dist::inclusive_scan(backend, comm, in.data(), out.data(), n, o);
      else dist::exclusive_scan(backend, comm, in.data(), out.data(), n, scalar_as<T>(spec.init), o);
      download(backend, comm, out.data(), n, h_out);
    });
  });
}

template <class Backend>
void histogram_on(Backend& backend, dist::communicator& comm, const histogram_spec& spec, const void* h_samples,
                  std::int64_t n, void* h_counts) {
  visit_histogram_sample(spec.sample, [&](auto zero) {
    using Sample = decltype(zero);
    visit_histogram_counter(spec.counter, [&](auto counter_zero) {
      using Counter = decltype(counter_zero);
      const auto samples = upload<Sample>(backend, h_samples, n);
      auto counts = backend.template allocate<Counter>(spec.num_bins);
      using level = histogram::level_t<Sample>;
      dist::histogram_even(backend, comm, samples.data(), n, counts.data(), spec.num_bins,
                           static_cast<level>(spec.lower), static_cast<level>(spec.upper));
      download(backend, comm, counts.data(), spec.num_bins, h_counts);
    });
  });
}

template <class Backend>
dist_kept select_on(Backend& backend, dist::communicator& comm, const select_spec& spec, const void* h_values,
                    const std::uint8_t* h_flags, std::int64_t n) {
  dist_kept out;
  visit_numeric(spec.type, [&](auto zero) {
    using T = decltype(zero);
    const auto values = upload<T>(backend, h_values, n);
    auto kept = [&] {
      if (!spec.flagged) return dist::select_if(backend, comm, values.data(), n, predicate_of<T>(spec));
      const auto flags = upload<std::uint8_t>(backend, h_flags, n);
      return dist::select_flagged(backend, comm, values.data(), flags.data(), n);
    }();
    out.items = download_bytes(backend, comm, kept.items.data(), kept.count);
    out.count = kept.count;
    out.first = kept.first;
    out.total = kept.total;
  });
  return out;
}

template <class Backend>
dist_sorted sort_on(Backend& backend, dist::communicator& comm, const sort_spec& spec, const void* h_keys,
                    const void* h_values, std::int64_t n) {
  dist_sorted out;
  visit_sort_key(spec.key, [&](auto key_zero) {
    using Key = decltype(key_zero);
    visit_sort_value(spec.value_bytes, [&](auto value_zero) {
      using Value = std::conditional_t<std::is_same_v<decltype(value_zero), keys_only>, dist::no_values, decltype(value_zero)>;
      constexpr bool pairs = !std::is_same_v<Value, dist::no_values>;
      const auto keys = upload<Key>(backend, h_keys, n);
      const auto values = upload<Value>(backend, h_values, pairs ? n : 0);
      const dist::sort_options options{spec.descending, spec.begin_bit, spec.end_bit};
      auto sorted = dist::sort_pairs(backend, comm, keys.data(), values.data(), n, options);
      out.count = static_cast<std::int64_t>(sorted.keys.size());
      out.keys = download_bytes(backend, comm, sorted.keys.data(), out.count);
      if constexpr (pairs) out.values = download_bytes(backend, comm, sorted.values.data(), out.count);
      out.first = sorted.first;
      out.total = sorted.total;
      out.moved = sorted.moved;
    });
  });
  return out;
}

}  // namespace lookback::typed::detail
