#pragma once
// Copies of one whole bucket between a source or sink and the device. From and to host memory they are
// one copy; from and to a file they go through two pinned pieces taking turns, so that reading (or
// writing) one piece overlaps the other's copy. The pieces are pinned on first use only.
#include <lookback/pipelines/chunk_pipeline.hpp>
#include <lookback/pipelines/pinned_buffer.hpp>
#include <lookback/pipelines/sink.hpp>
#include <lookback/pipelines/source.hpp>
#include <lookback/primitives/error.cuh>
#include <lookback/primitives/event.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>

namespace lookback::pipelines::detail {

class piece_ring {
 public:
  /// The most a piece holds: a copy of 32 MiB takes 0.6 ms at 55 GB/s, far above a copy's fixed cost.
  static constexpr std::size_t max_piece_bytes = std::size_t{32} << 20;
  /// The pinned memory a ring of pieces of `piece_bytes` takes once used.
  static constexpr std::size_t bytes_for(std::size_t piece_bytes) { return 2 * piece_bytes; }

  explicit piece_ring(std::size_t piece_bytes) : piece_bytes_(piece_bytes) {}
  /// to_device returns with its last piece's copy maybe in flight: the pieces stay until it is done.
  ~piece_ring() {
    for (const cuda_event& done : done_)
      if (const cudaError_t e = cudaEventSynchronize(done); e != cudaSuccess)
        std::fprintf(stderr, "lookback: waiting for a piece's copy failed in ~piece_ring: %s\n", cudaGetErrorString(e));
  }
  piece_ring(const piece_ring&) = delete;
  piece_ring& operator=(const piece_ring&) = delete;

  /// Items [first, first + count) of `from` into d_dst, enqueued on `stream` (the last piece may still
  /// be in flight on return).
  void to_device(source& from, std::int64_t first, std::int64_t count, void* d_dst, cudaStream_t stream) {
    const std::size_t item = from.item_bytes();
    auto* dst = static_cast<std::byte*>(d_dst);
    if (const auto* host = static_cast<const std::byte*>(from.host_items())) {
      if (count > 0)
        LOOKBACK_CUDA_TRY(cudaMemcpyAsync(dst, host + static_cast<std::size_t>(first) * item,
                                          static_cast<std::size_t>(count) * item, cudaMemcpyHostToDevice, stream));
      return;
    }
    pin();
    const std::int64_t per = std::max<std::int64_t>(1, static_cast<std::int64_t>(piece_bytes_ / item));
    for (std::int64_t at = 0, k = 0; at < count; at += per, ++k) {
      const int b = static_cast<int>(k % 2);
      const std::int64_t n = std::min(per, count - at);
      LOOKBACK_CUDA_TRY(cudaEventSynchronize(done_[b]));  // this piece's previous copy has left it
      from.read(first + at, n, pieces_[b].data());
      LOOKBACK_CUDA_TRY(cudaMemcpyAsync(dst + static_cast<std::size_t>(at) * item, pieces_[b].data(),
                                        static_cast<std::size_t>(n) * item, cudaMemcpyHostToDevice, stream));
      LOOKBACK_CUDA_TRY(cudaEventRecord(done_[b], stream));
    }
  }

  /// `count` items from d_src into `to` at its items [first, first + count); returns once they are there.
  void from_device(const void* d_src, std::int64_t count, sink& to, std::int64_t first, std::size_t item,
                   cudaStream_t stream) {
    const auto* src = static_cast<const std::byte*>(d_src);
    if (auto* host = static_cast<std::byte*>(to.host_items())) {
      if (count > 0)
        LOOKBACK_CUDA_TRY(cudaMemcpyAsync(host + static_cast<std::size_t>(first) * item, src,
                                          static_cast<std::size_t>(count) * item, cudaMemcpyDeviceToHost, stream));
      LOOKBACK_CUDA_TRY(cudaStreamSynchronize(stream));
      return;
    }
    pin();
    const std::int64_t per = std::max<std::int64_t>(1, static_cast<std::int64_t>(piece_bytes_ / item));
    const auto enqueue = [&](std::int64_t k) {
      const int b = static_cast<int>(k % 2);
      const std::int64_t at = k * per;
      LOOKBACK_CUDA_TRY(cudaMemcpyAsync(pieces_[b].data(), src + static_cast<std::size_t>(at) * item,
                                        static_cast<std::size_t>(std::min(per, count - at)) * item,
                                        cudaMemcpyDeviceToHost, stream));
      LOOKBACK_CUDA_TRY(cudaEventRecord(done_[b], stream));
    };
    const std::int64_t pieces = (count + per - 1) / per;
    if (pieces > 0) enqueue(0);
    for (std::int64_t k = 0; k < pieces; ++k) {
      // The other piece was written out last round: its next copy overlaps this one's write.
      if (k + 1 < pieces) enqueue(k + 1);
      const int b = static_cast<int>(k % 2);
      LOOKBACK_CUDA_TRY(cudaEventSynchronize(done_[b]));
      to.write(first + k * per, std::min(per, count - k * per), pieces_[b].data());
    }
  }

 private:
  void pin() {
    if (pieces_[0].size() != 0) return;
    pieces_[0] = pinned_buffer(piece_bytes_);
    pieces_[1] = pinned_buffer(piece_bytes_);
  }

  std::size_t piece_bytes_;
  pinned_buffer pieces_[2];
  cuda_event done_[2];
};

}  // namespace lookback::pipelines::detail
