// The command's sort of any size: lookback::pipelines::sort_with with the typed sort (each dtype's
// instantiations compiled once, in sort_lookback.cu and sort_cub.cu) as its step. With --verify every
// sort it runs, a chunk split by its digit or a whole bucket, is compared with CUB's sort of the same
// items, bit for bit; the sort itself checks that each bucket received what the histogram counted.
#include "typed/sort_visit.hpp"
#include "typed/stream_verify.hpp"

#include <lookback/pipelines/sort.cuh>

#include <algorithm>
#include <cstring>

namespace lookback::typed {
namespace {

/// The first item where two sorted copies differ, keys before values.
std::optional<mismatch> first_difference(const sort_spec& spec, const std::vector<std::byte>& want_keys,
                                         const std::vector<std::byte>& got_keys, const std::vector<std::byte>& want_values,
                                         const std::vector<std::byte>& got_values, std::int64_t n) {
  const std::size_t kw = io::dtype_size(spec.key), vw = static_cast<std::size_t>(spec.value_bytes);
  for (std::int64_t i = 0; i < n; ++i)
    if (std::memcmp(want_keys.data() + i * kw, got_keys.data() + i * kw, kw) != 0)
      return mismatch{i, "key " + format_key(spec.key, want_keys.data() + i * kw),
                      "key " + format_key(spec.key, got_keys.data() + i * kw)};
  for (std::int64_t i = 0; i < n && vw != 0; ++i)
    if (std::memcmp(want_values.data() + i * vw, got_values.data() + i * vw, vw) != 0)
      return mismatch{i, "a different value", "value bytes differing"};
  return std::nullopt;
}

template <class Key>
struct typed_sort_step {
  sort_spec spec;
  detail::verifier* verify;

  void operator()(void* d_temp, std::size_t& temp_bytes, const Key* d_keys_in, Key* d_keys_out, const void* d_values_in,
                  void* d_values_out, std::int64_t n, int begin_bit, int end_bit, cudaStream_t stream) const {
    sort_spec s = spec;
    s.begin_bit = begin_bit;
    s.end_bit = end_bit;
    if (d_temp == nullptr) {
      sort(implementation::lookback, s, nullptr, temp_bytes, nullptr, nullptr, nullptr, nullptr, n, stream);
      if (verify != nullptr) {
        std::size_t cub_bytes = 0;
        sort(implementation::cub, s, nullptr, cub_bytes, nullptr, nullptr, nullptr, nullptr, n, stream);
        temp_bytes = std::max(temp_bytes, cub_bytes);
      }
      return;
    }
    std::size_t bytes = temp_bytes;
    const auto ours = [&] {
      sort(implementation::lookback, s, d_temp, bytes, d_keys_in, d_keys_out, d_values_in, d_values_out, n, stream);
    };
    if (verify == nullptr) return ours();
    const std::size_t vw = static_cast<std::size_t>(spec.value_bytes);
    const std::size_t values_at = (static_cast<std::size_t>(n) * sizeof(Key) + 255) / 256 * 256;
    // Held for this call alone: the external sort's phases plan their device memory apart (a chunk's
    // split, then buckets), and a buffer kept from one would sit beside the next one's slots.
    device_buffer<std::byte> d_cub_buffer(values_at + static_cast<std::size_t>(n) * vw, stream);
    std::byte* d_cub = d_cub_buffer.data();
    void* d_cub_values = vw != 0 ? d_cub + values_at : nullptr;
    verify->time_both(stream, ours, [&] {
      sort(implementation::cub, s, d_temp, bytes, d_keys_in, d_cub, d_values_in, d_cub_values, n, stream);
    });
    const auto want_keys = detail::fetch(d_cub, n, sizeof(Key), stream);
    const auto got_keys = detail::fetch(d_keys_out, n, sizeof(Key), stream);
    const auto want_values = vw != 0 ? detail::fetch(d_cub_values, n, vw, stream) : std::vector<std::byte>{};
    const auto got_values = vw != 0 ? detail::fetch(d_values_out, n, vw, stream) : std::vector<std::byte>{};
    // A streamed sort's calls sort a chunk by digit or one bucket, whose place in the output this step
    // does not know: the index counts in the call's items.
    std::optional<mismatch> m = first_difference(spec, want_keys, got_keys, want_values, got_values, n);
    if (m) m->counted_in = "of a sorted part of " + std::to_string(n) + " items";
    verify->record(std::move(m), 0, n);
  }
};

}  // namespace

stream_outcome sort_stream(const sort_spec& spec, pipelines::source& keys, pipelines::source* values,
                           pipelines::sink& keys_out, pipelines::sink* values_out, const stream_request& r,
                           const std::filesystem::path& spill_directory) {
  check_sort_spec(spec);
  stream_outcome outcome;
  detail::verifier verifier;
  const std::size_t item = io::dtype_size(spec.key) + static_cast<std::size_t>(spec.value_bytes);
  pipelines::sort_options o;
  static_cast<pipelines::stream_options&>(o) = detail::verified_options(r, item, 4 * item);
  o.descending = spec.descending;
  o.begin_bit = spec.begin_bit;
  o.end_bit = spec.end_bit;
  o.spill_directory = spill_directory;
  visit_sort_key(spec.key, [&](auto zero) {
    using Key = decltype(zero);
    const typed_sort_step<Key> step{spec, r.verify ? &verifier : nullptr};
    outcome.sorted = spec.descending ? pipelines::sort_with<Key, true>(keys, values, keys_out, values_out, o, step)
                                     : pipelines::sort_with<Key, false>(keys, values, keys_out, values_out, o, step);
  });
  outcome.plan.items = keys.size();
  if (r.verify) outcome.checked = verifier.check;
  return outcome;
}

}  // namespace lookback::typed
