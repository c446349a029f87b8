#pragma once
// Tuning of the distributed sort's merge of received runs (merge_kernels.cuh). A tile is one block's
// share of the output; its two input ranges and, for pairs, their values sit in shared memory.
#include <cstddef>

namespace lookback::dist::device {

/// 256 threads and 15 items a thread for 4-byte keys and values (odd, so that the threads' strided
/// shared-memory writes fall in distinct banks); 7 for 8-byte ones, which keeps a block of 8-byte pairs
/// under 48 KiB of static shared memory. Measured on an H100 (bench/results/h100x2-dist-merge.md,
/// dist_merge): two sorted runs of 2^28 uint32 keys merged in 2.07 ms, 2.1 TB/s read and written,
/// about 70% of a device copy; not yet tuned further (tile shape, items, ncu).
template <std::size_t KeyBytes, std::size_t ValueBytes>
struct merge_policy {
  static constexpr int block_threads = 256;
  static constexpr int items_per_thread = (KeyBytes > 4 || ValueBytes > 4) ? 7 : 15;
  static constexpr int tile_items = block_threads * items_per_thread;
};

}  // namespace lookback::dist::device
