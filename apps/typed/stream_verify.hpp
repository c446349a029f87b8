#pragma once
// What the streamed runs' --verify shares: CUB's scratch within the plan's budget, ours and CUB's
// times summed over chunks, and the first mismatch counted from the start of the input.
#include "typed/gpu_timing.hpp"
#include "typed/stream_ops.hpp"

#include <lookback/primitives/device_buffer.cuh>
#include <lookback/primitives/error.cuh>
#include <lookback/primitives/stream.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace lookback::typed::detail {

/// `count` items of `item_bytes` from the device, after the stream's work so far.
inline std::vector<std::byte> fetch(const void* d_items, std::int64_t count, std::size_t item_bytes, cudaStream_t stream) {
  std::vector<std::byte> host(static_cast<std::size_t>(count) * item_bytes);
  if (!host.empty())
    LOOKBACK_CUDA_TRY(cudaMemcpyAsync(host.data(), d_items, host.size(), cudaMemcpyDeviceToHost, stream));
  LOOKBACK_CUDA_TRY(cudaStreamSynchronize(stream));
  return host;
}

/// One verified run's state, shared by the step's copies: CUB's output buffer (allocated at the first
/// chunk, chunk-sized, which the plan counted, and kept for the rest of the run: every chunk of a scan
/// or reduction is planned alike, where a sort's phases are not, so a sort takes its own a call at a
/// time), where the current chunk starts, the running result.
struct verifier {
  chunk_check check;
  std::int64_t next_first = 0;
  cuda_stream own;  // outlives the pipeline's streams, so the buffer is freed on a live one
  device_buffer<std::byte> d_cub;

  std::byte* cub_output(std::size_t bytes) {
    if (d_cub.size() < bytes) {
      d_cub = device_buffer<std::byte>();  // freed before the larger one is taken: never both at once
      d_cub = device_buffer<std::byte>(bytes, own);
      LOOKBACK_CUDA_TRY(cudaStreamSynchronize(own));
    }
    return d_cub.data();
  }
  /// Times both on the chunk (median of 9 after 2 warm-ups each) and adds the times.
  template <class Ours, class Cub>
  void time_both(cudaStream_t stream, Ours&& ours, Cub&& cub) {
    check.lookback_ms += median_time_ms(stream, ours);
    check.cub_ms += median_time_ms(stream, cub);
  }
  /// Records a chunk's first mismatch unless an earlier chunk had one: its chunk-relative index plus
  /// `index_base` (where the chunk's items, or its output, start; 0 for a histogram's bins).
  void record(std::optional<mismatch> m, std::int64_t index_base, std::int64_t chunk_items) {
    if (m && !check.mismatch) {
      m->index += index_base;
      check.mismatch = m;
    }
    next_first += chunk_items;
  }
};

/// A chunk step with --verify: a query (null d_temp) answers the larger of ours' and CUB's temporary
/// sizes; a real call runs ours and, with a verifier, times it beside CUB's. `ours` and `cub` take
/// (void* d_temp, std::size_t& bytes). Returns whether the chunk's outputs are due for comparison.
template <class Ours, class Cub>
bool verified_step(verifier* verify, void* d_temp, std::size_t& temp_bytes, cudaStream_t stream, Ours&& ours, Cub&& cub) {
  if (d_temp == nullptr) {
    ours(nullptr, temp_bytes);
    if (verify != nullptr) {
      std::size_t cub_bytes = 0;
      cub(nullptr, cub_bytes);
      temp_bytes = std::max(temp_bytes, cub_bytes);
    }
    return false;
  }
  std::size_t bytes = temp_bytes;
  if (verify == nullptr) {
    ours(d_temp, bytes);
    return false;
  }
  verify->time_both(stream, [&] { ours(d_temp, bytes); }, [&] { cub(d_temp, bytes); });
  return true;
}

/// The options of a verified run: CUB's output beside ours in device memory (`cub_bytes_per_item`
/// more a slot's item, counted once per slot though one buffer serves them all) and the host copies
/// the comparison makes (input, ours, CUB's: `host_bytes_per_item`).
inline pipelines::stream_options verified_options(const stream_request& r, std::size_t cub_bytes_per_item,
                                                  std::size_t host_bytes_per_item) {
  pipelines::stream_options o = r.options;
  if (r.verify) {
    o.extra_device_per_item += cub_bytes_per_item;
    o.extra_device_fixed += 4096;
    o.extra_host_per_item += host_bytes_per_item;
  }
  return o;
}

}  // namespace lookback::typed::detail
