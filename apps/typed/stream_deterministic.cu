// The deterministic streamed scan and reduction for every (dtype, operator): lookback's deterministic
// look-back per chunk, chunks at window multiples so that the result is one deterministic run's bits.
// With --verify, CUB's scan or reduction of the same chunk is timed beside it, and every chunk is
// compared bit for bit with the CPU's deterministic association from the same carried value.
#include "typed/stream_verify.hpp"
#include "typed/visit.hpp"

#include <lookback/pipelines/reduce.cuh>
#include <lookback/pipelines/scan.cuh>
#include <lookback/primitives/cpu/deterministic_scan.hpp>

#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace lookback::typed {
namespace {

/// The carried value a chunk starts from, on the host (none: an inclusive scan's first chunk).
template <class T>
std::optional<T> start_of(const carried<T>& carry, cudaStream_t stream) {
  if (carry.d_prefix == nullptr) return std::nullopt;
  T value{};
  std::memcpy(&value, detail::fetch(carry.d_prefix, 1, sizeof(T), stream).data(), sizeof(T));
  return value;
}

/// The same bits, or both NaN: the GPU's arithmetic makes one canonical NaN where the host's keeps an
/// operand's payload, so a NaN's bits are outside the deterministic promise (docs/command.md).
template <class T>
bool same_bits(const T& want, const T& got) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(want) && std::isnan(got)) return true;
  return std::memcmp(&want, &got, sizeof(T)) == 0;
}

/// The first element whose bits differ.
template <class T>
std::optional<mismatch> first_bit_difference(const T* want, const T* got, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i)
    if (!same_bits(want[i], got[i])) return mismatch{i, format_value(want[i]), format_value(got[i])};
  return std::nullopt;
}

/// Whether a chunk found carried in what the chunks before it left (`want`: init or nothing before the
/// first chunk, then the CPU's total so far); reported at the chunk's first item.
template <class T>
std::optional<mismatch> carry_difference(const std::optional<T>& want, const std::optional<T>& got) {
  if (want.has_value() == got.has_value() && (!want || same_bits(*want, *got))) return std::nullopt;
  const auto text = [](const std::optional<T>& v) { return "carried in " + (v ? format_value(*v) : std::string("nothing")); };
  return mismatch{0, text(want), text(got)};
}

}  // namespace

stream_outcome scan_stream_deterministic(const scan_spec& spec, pipelines::source& in, pipelines::sink& out,
                                         const stream_request& r) {
  stream_outcome outcome;
  detail::verifier verifier;
  verifier.check.exact = true;
  detail::verifier* v = r.verify ? &verifier : nullptr;
  visit_numeric(spec.type, [&](auto zero) {
    using T = decltype(zero);
    auto options = detail::verified_options(r, sizeof(T), 3 * sizeof(T));
    options.plan.chunk_multiple = policy::deterministic_granule::window_items;
    visit_op(spec.op, [&](auto op) {
      // What the next chunk must find carried in: init before an exclusive scan's first chunk, nothing
      // before an inclusive one's (scan_with's first_from_nothing), then the CPU's total of the chunks so
      // far. Each chunk's reference starts from what the GPU carried, so a wrong carry would shift every
      // later chunk and still match it: the carry is checked on its own.
      const T init = scalar_as<T>(spec.init);
      std::optional<T> want_start;
      if (!spec.inclusive) want_start = init;
      const auto step = [&](void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out, carried<T> carry,
                            std::int64_t n, cudaStream_t stream) {
        const bool check = detail::verified_step(
            v, d_temp, temp_bytes, stream,
            [&](void* t, std::size_t& b) {
              if (spec.inclusive) pipelines::deterministic_scan_chunk<false, decltype(op)>{op}(t, b, d_in, d_out, carry, n, stream);
              else pipelines::deterministic_scan_chunk<true, decltype(op)>{op}(t, b, d_in, d_out, carry, n, stream);
            },
            [&](void* t, std::size_t& b) {
              scan(implementation::cub, spec, t, b, d_in, t == nullptr ? nullptr : verifier.cub_output(n * sizeof(T)), n,
                   stream);
            });
        if (!check) return;
        const std::optional<T> start = start_of(carry, stream);  // ours left it as it was
        const auto items = detail::fetch(d_in, n, sizeof(T), stream);
        const auto got = detail::fetch(d_out, n, sizeof(T), stream);
        std::optional<mismatch> wrong = carry_difference(want_start, start);
        std::vector<T> want(static_cast<std::size_t>(n));
        want_start = cpu::deterministic_scan(reinterpret_cast<const T*>(items.data()), want.data(), n, op, start,
                                             !spec.inclusive);
        if (!wrong) wrong = first_bit_difference(want.data(), reinterpret_cast<const T*>(got.data()), n);
        verifier.record(wrong, verifier.next_first, n);
      };
      if (spec.inclusive)
        outcome.plan = pipelines::scan_with<false>(in, out, neutral_of<T>(op), op, options, step, true);
      else
        outcome.plan = pipelines::scan_with<true>(in, out, init, op, options, step);
    });
  });
  if (r.verify) outcome.checked = verifier.check;
  return outcome;
}

stream_outcome reduce_stream_deterministic(io::dtype type, op_kind op_id, pipelines::source& in, void* result,
                                           const stream_request& r) {
  stream_outcome outcome;
  detail::verifier verifier;
  verifier.check.exact = true;
  detail::verifier* v = r.verify ? &verifier : nullptr;
  visit_numeric(type, [&](auto zero) {
    using T = decltype(zero);
    auto options = detail::verified_options(r, 0, sizeof(T));
    options.plan.chunk_multiple = policy::deterministic_granule::window_items;
    visit_op(op_id, [&](auto op) {
      // What the next chunk must find carried in: the identity, then the CPU's total so far (as the scan's).
      const T init = identity_of<T>(op);
      std::optional<T> want_start = init;
      const auto step = [&](void* d_temp, std::size_t& temp_bytes, const T* d_in, carried<T> carry, std::int64_t n,
                            cudaStream_t stream) {
        const bool check = detail::verified_step(
            v, d_temp, temp_bytes, stream,
            [&](void* t, std::size_t& b) { pipelines::deterministic_reduce_chunk<decltype(op)>{op}(t, b, d_in, carry, n, stream); },
            [&](void* t, std::size_t& b) {
              reduce(implementation::cub, type, op_id, t, b, d_in, t == nullptr ? nullptr : verifier.cub_output(sizeof(T)),
                     n, stream);
            });
        if (!check) return;
        const std::optional<T> start = start_of(carry, stream);  // ours left it as it was
        const auto items = detail::fetch(d_in, n, sizeof(T), stream);
        const auto got = detail::fetch(carry.d_total, 1, sizeof(T), stream);
        std::optional<mismatch> wrong = carry_difference(want_start, start);
        const T want = *cpu::deterministic_scan(reinterpret_cast<const T*>(items.data()), static_cast<T*>(nullptr), n, op,
                                                start, true);
        want_start = want;
        // The running value after the chunk, reported at the chunk's first item.
        if (!wrong) wrong = first_bit_difference(&want, reinterpret_cast<const T*>(got.data()), 1);
        verifier.record(wrong, verifier.next_first, n);
      };
      const T value = pipelines::reduce_carried_with(in, init, options, step, &outcome.plan);
      std::memcpy(result, &value, sizeof(T));
    });
  });
  if (r.verify) outcome.checked = verifier.check;
  return outcome;
}

}  // namespace lookback::typed
