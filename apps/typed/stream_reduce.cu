// The streamed reduction, histogram and compaction for run-time dtypes: the pipelines' chunk loop with
// the typed (already instantiated) lookback and CUB calls as chunk steps; with --verify each chunk's
// partial, counts or kept items are compared with CUB's on the same chunk.
#include "typed/histogram_visit.hpp"
#include "typed/stream_verify.hpp"
#include "typed/visit.hpp"

#include <lookback/pipelines/histogram.cuh>
#include <lookback/pipelines/reduce.cuh>
#include <lookback/pipelines/select.cuh>

#include <cstring>

namespace lookback::typed {
namespace {

/// Runs `call(impl, d_temp, bytes, d_out)` as a chunk step (detail::verified_step); with a verifier
/// CUB's output goes to its scratch and both outputs are handed to `compare`.
template <class Call, class Compare>
void typed_step(detail::verifier* verify, void* d_temp, std::size_t& temp_bytes, void* d_out, std::size_t cub_bytes,
                cudaStream_t stream, Call&& call, Compare&& compare) {
  void* d_cub = nullptr;
  const bool check = detail::verified_step(
      verify, d_temp, temp_bytes, stream,
      [&](void* t, std::size_t& b) { call(implementation::lookback, t, b, t == nullptr ? nullptr : d_out); },
      [&](void* t, std::size_t& b) {
        if (t != nullptr) d_cub = verify->cub_output(cub_bytes);
        call(implementation::cub, t, b, d_cub);
      });
  if (check) compare(d_cub);
}

}  // namespace

stream_outcome reduce_stream(io::dtype type, op_kind op, pipelines::source& in, void* result, const stream_request& r,
                             bool deterministic) {
  if (deterministic) return reduce_stream_deterministic(type, op, in, result, r);
  stream_outcome outcome;
  detail::verifier verifier;
  detail::verifier* v = r.verify ? &verifier : nullptr;
  visit_numeric(type, [&](auto zero) {
    using T = decltype(zero);
    visit_op(op, [&](auto o) {
      const auto step = [&](void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_partial, std::int64_t n,
                            cudaStream_t stream) {
        typed_step(
            v, d_temp, temp_bytes, d_partial, sizeof(T), stream,
            [&](implementation impl, void* t, std::size_t& b, void* out) { reduce(impl, type, op, t, b, d_in, out, n, stream); },
            [&](const void* d_cub) {
              const auto items = detail::fetch(d_in, n, sizeof(T), stream);
              const auto want = detail::fetch(d_cub, 1, sizeof(T), stream);
              const auto got = detail::fetch(d_partial, 1, sizeof(T), stream);
              // The chunk's partial, reported at the chunk's first item. An empty chunk's result is each
              // implementation's own convention (CUB's float min is numeric_limits::max, ours the
              // identity +inf): nothing to compare.
              verifier.record(n == 0 ? std::nullopt : reduce_mismatch(type, op, items.data(), n, want.data(), got.data()),
                              verifier.next_first, n);
            });
      };
      const T value = pipelines::reduce_with(in, o, identity_of<T>(o), detail::verified_options(r, 0, sizeof(T)), step,
                                             &outcome.plan);
      std::memcpy(result, &value, sizeof(T));
    });
  });
  if (r.verify) outcome.checked = verifier.check;
  return outcome;
}

stream_outcome histogram_stream(const histogram_spec& spec, pipelines::source& samples, void* h_counts,
                                const stream_request& r) {
  stream_outcome outcome;
  detail::verifier verifier;
  detail::verifier* v = r.verify ? &verifier : nullptr;
  const std::size_t bins = static_cast<std::size_t>(spec.num_bins);
  visit_histogram_sample(spec.sample, [&](auto zero) {
    using Sample = decltype(zero);
    visit_histogram_counter(spec.counter, [&](auto counter_zero) {
      using Counter = decltype(counter_zero);
      const auto step = [&](void* d_temp, std::size_t& temp_bytes, const Sample* d_samples, Counter* d_counts, int,
                            std::int64_t n, cudaStream_t stream) {
        typed_step(
            v, d_temp, temp_bytes, d_counts, bins * sizeof(Counter), stream,
            [&](implementation impl, void* t, std::size_t& b, void* out) {
              histogram_even(impl, spec, t, b, d_samples, n, out, stream);
            },
            [&](const void* d_cub) {
              const auto want = detail::fetch(d_cub, static_cast<std::int64_t>(bins), sizeof(Counter), stream);
              const auto got = detail::fetch(d_counts, static_cast<std::int64_t>(bins), sizeof(Counter), stream);
              std::optional<mismatch> m;
              const auto* w = reinterpret_cast<const Counter*>(want.data());
              const auto* g = reinterpret_cast<const Counter*>(got.data());
              for (std::size_t b = 0; b < bins && !m; ++b)
                if (w[b] != g[b]) m = mismatch{static_cast<std::int64_t>(b), std::to_string(w[b]), std::to_string(g[b])};
              verifier.record(m, 0, n);  // a bin, not an item
            });
      };
      auto options = detail::verified_options(r, 0, 0);
      options.extra_device_fixed += r.verify ? bins * sizeof(Counter) : 0;
      outcome.plan = pipelines::histogram_with<Sample>(samples, static_cast<Counter*>(h_counts), spec.num_bins, options, step);
    });
  });
  if (r.verify) outcome.checked = verifier.check;
  return outcome;
}

stream_outcome select_stream(const select_spec& spec, pipelines::source& values, pipelines::source* flags,
                             pipelines::sink& out, const stream_request& r) {
  stream_outcome outcome;
  detail::verifier verifier;
  detail::verifier* v = r.verify ? &verifier : nullptr;
  visit_numeric(spec.type, [&](auto zero) {
    using T = decltype(zero);
    // CUB's kept items, then its count, in one scratch buffer.
    std::int64_t kept_before = 0;  // mismatches are counted in output elements
    const auto step = [&](void* d_temp, std::size_t& temp_bytes, const T* d_in, const std::uint8_t* d_flags, T* d_out,
                          std::int64_t* d_count, std::int64_t n, cudaStream_t stream) {
      const std::size_t count_at = (static_cast<std::size_t>(n) * sizeof(T) + 255) / 256 * 256;
      typed_step(
          v, d_temp, temp_bytes, d_out, count_at + sizeof(std::int64_t), stream,
          [&](implementation impl, void* t, std::size_t& b, void* o) {
            auto* count = o == d_out ? d_count
                                     : (o == nullptr ? nullptr
                                                     : reinterpret_cast<std::int64_t*>(static_cast<std::byte*>(o) + count_at));
            select(impl, spec, t, b, d_in, d_flags, o, count, n, stream);
          },
          [&](const void* d_cub) {
            std::int64_t want_count = 0, got_count = 0;
            std::memcpy(&want_count, detail::fetch(static_cast<const std::byte*>(d_cub) + count_at, 1, 8, stream).data(), 8);
            std::memcpy(&got_count, detail::fetch(d_count, 1, 8, stream).data(), 8);
            want_count = std::clamp<std::int64_t>(want_count, 0, n);
            got_count = std::clamp<std::int64_t>(got_count, 0, n);
            const auto want = detail::fetch(d_cub, want_count, sizeof(T), stream);
            const auto got = detail::fetch(d_out, got_count, sizeof(T), stream);
            std::optional<mismatch> m;
            for (std::int64_t i = 0; i < std::min(want_count, got_count) && !m; ++i)
              if (std::memcmp(want.data() + i * sizeof(T), got.data() + i * sizeof(T), sizeof(T)) != 0)
                m = mismatch{i, format_scalar(load_scalar(spec.type, want.data() + i * sizeof(T))),
                             format_scalar(load_scalar(spec.type, got.data() + i * sizeof(T)))};
            if (!m && want_count != got_count)
              m = mismatch{std::min(want_count, got_count), std::to_string(want_count) + " kept",
                           std::to_string(got_count) + " kept"};
            verifier.record(m, kept_before, n);
            kept_before += got_count;
          });
    };
    outcome.kept = pipelines::select_with<T>(values, flags, out, detail::verified_options(r, sizeof(T), 3 * sizeof(T)),
                                             step, &outcome.plan);
  });
  if (r.verify) outcome.checked = verifier.check;
  return outcome;
}

}  // namespace lookback::typed
