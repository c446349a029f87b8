// The streamed scan for every (dtype, operator, exclusive/inclusive): lookback's carried look-back
// scan per chunk and, with --verify, CUB's scan of the same chunk from the same carried value.
#include "typed/stream_verify.hpp"
#include "typed/visit.hpp"

#include <lookback/pipelines/scan.cuh>

#include <cub/device/device_scan.cuh>

#include <cmath>

namespace lookback::typed {
namespace {

/// CUB's scan of one chunk from `carry` (a host value): ExclusiveScan, or InclusiveScanInit.
template <bool Exclusive, class T, class Op>
void cub_scan_chunk(void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out, T carry, Op op, std::int64_t n,
                    cudaStream_t stream) {
  if constexpr (Exclusive)
    LOOKBACK_CUDA_TRY(cub::DeviceScan::ExclusiveScan(d_temp, temp_bytes, d_in, d_out, op, carry, n, stream));
  else
    LOOKBACK_CUDA_TRY(cub::DeviceScan::InclusiveScanInit(d_temp, temp_bytes, d_in, d_out, op, carry, n, stream));
}

template <bool Exclusive, class T, class Op>
struct scan_step {
  scan_spec spec;
  Op op;
  detail::verifier* verify;  // null: ours alone

  void operator()(void* d_temp, std::size_t& temp_bytes, const T* d_in, T* d_out, carried<T> carry, std::int64_t n,
                  cudaStream_t stream) const {
    const pipelines::lookback_scan_chunk<Exclusive, Op> ours{op};
    if (d_temp == nullptr) {
      ours(nullptr, temp_bytes, d_in, d_out, carry, n, stream);
      if (verify != nullptr) {
        std::size_t cub_bytes = 0;
        cub_scan_chunk<Exclusive>(nullptr, cub_bytes, d_in, d_out, T{}, op, n, stream);
        temp_bytes = std::max(temp_bytes, cub_bytes);
      }
      return;
    }
    if (verify == nullptr) return ours(d_temp, temp_bytes, d_in, d_out, carry, n, stream);
    T* d_cub = reinterpret_cast<T*>(verify->cub_output(static_cast<std::size_t>(n) * sizeof(T)));
    T carry_value{};
    LOOKBACK_CUDA_TRY(cudaMemcpyAsync(&carry_value, carry.d_prefix, sizeof(T), cudaMemcpyDeviceToHost, stream));
    LOOKBACK_CUDA_TRY(cudaStreamSynchronize(stream));
    std::size_t bytes = temp_bytes;
    verify->time_both(
        stream, [&] { ours(d_temp, bytes, d_in, d_out, carry, n, stream); },
        [&] { cub_scan_chunk<Exclusive>(d_temp, bytes, d_in, d_cub, carry_value, op, n, stream); });
    const auto in = detail::fetch(d_in, n, sizeof(T), stream);
    const auto want = detail::fetch(d_cub, n, sizeof(T), stream);
    const auto got = detail::fetch(d_out, n, sizeof(T), stream);
    verify->record(scan_mismatch_from(spec, carry_value, 1, reinterpret_cast<const T*>(in.data()),
                                      reinterpret_cast<const T*>(want.data()), reinterpret_cast<const T*>(got.data()), n),
                   verify->next_first, n);
  }
};

}  // namespace

stream_outcome scan_stream(const scan_spec& spec, pipelines::source& in, pipelines::sink& out, const stream_request& r) {
  if (spec.deterministic) return scan_stream_deterministic(spec, in, out, r);
  stream_outcome outcome;
  detail::verifier verifier;
  visit_numeric(spec.type, [&](auto zero) {
    using T = decltype(zero);
    const auto options = detail::verified_options(r, sizeof(T), 3 * sizeof(T));
    visit_op(spec.op, [&](auto o) {
      using Op = decltype(o);
      detail::verifier* v = r.verify ? &verifier : nullptr;
      if (spec.inclusive)
        outcome.plan = pipelines::scan_with<false>(in, out, neutral_of<T>(o), o, options, scan_step<false, T, Op>{spec, o, v});
      else
        outcome.plan = pipelines::scan_with<true>(in, out, scalar_as<T>(spec.init), o, options, scan_step<true, T, Op>{spec, o, v});
    });
  });
  if (r.verify) outcome.checked = verifier.check;
  return outcome;
}

}  // namespace lookback::typed

namespace lookback::typed {

void scan_carried(const scan_spec& spec, void* d_temp, std::size_t& temp_bytes, const void* d_in, void* d_out,
                  const void* d_prefix, void* d_total, std::int64_t n, cudaStream_t stream) {
  visit_numeric(spec.type, [&](auto zero) {
    using T = decltype(zero);
    visit_op(spec.op, [&](auto op) {
      const carried<T> carry{static_cast<const T*>(d_prefix), static_cast<T*>(d_total)};
      const auto* in = static_cast<const T*>(d_in);
      auto* out = static_cast<T*>(d_out);
      if (spec.inclusive) pipelines::lookback_scan_chunk<false, decltype(op)>{op}(d_temp, temp_bytes, in, out, carry, n, stream);
      else pipelines::lookback_scan_chunk<true, decltype(op)>{op}(d_temp, temp_bytes, in, out, carry, n, stream);
    });
  });
}

}  // namespace lookback::typed
