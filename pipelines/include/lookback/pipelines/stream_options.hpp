#pragma once
// What every streamed algorithm takes besides its data: the budgets (by default what the device has
// free and a share of the host's memory), the plan's limits, and callbacks for the plan and progress.
#include <lookback/pipelines/chunk_plan.hpp>
#include <lookback/primitives/error.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>

#include <unistd.h>

namespace lookback::pipelines {

/// Chunks stay at most this wide (bytes of the widest input): a chunk's copy takes over a millisecond at
/// 55 GB/s, against a chunk's fixed costs of microseconds (a launch, a few events), while the pinned
/// staging of three slots for a file stays at 384 MiB: cudaHostAlloc pins about 1 GB/s (measured on
/// the H100 machine: 384 MiB of staging added 0.4 s to a 1 GiB scan), so it is paid once a run.
inline constexpr std::size_t default_max_chunk_bytes = std::size_t{64} << 20;

/// The device's free memory less 5% (the CUDA context and the pool's rounding need some), and a
/// quarter of the host's physical memory.
inline budget default_budget() {
  std::size_t free_bytes = 0, total_bytes = 0;
  LOOKBACK_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  const std::size_t host = pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) / 4
                                                 : std::size_t{1} << 30;
  return {free_bytes / 20 * 19, host};
}

struct stream_options {
  /// Both zero: default_budget(). A zero device or host part alone takes the default for that part.
  budget limits{};
  plan_limits plan{};
  std::size_t max_chunk_bytes = default_max_chunk_bytes;
  /// Called with the plan before anything is allocated.
  std::function<void(const chunk_plan&)> on_plan;
  /// Items done so far, and all of them.
  std::function<void(std::int64_t done, std::int64_t total)> progress;
  /// What a caller's chunk step takes beyond the algorithm's own (a verification's second output, say),
  /// per item of a slot and once.
  std::size_t extra_device_per_item = 0;
  std::size_t extra_host_per_item = 0;
  std::size_t extra_device_fixed = 0;
  std::size_t extra_host_fixed = 0;
};

namespace detail {

/// options' budgets with the defaults filled in.
inline budget resolve_budget(const stream_options& o) {
  budget b = o.limits;
  if (b.device_bytes == 0 || b.host_bytes == 0) {
    const budget d = default_budget();
    if (b.device_bytes == 0) b.device_bytes = d.device_bytes;
    if (b.host_bytes == 0) b.host_bytes = d.host_bytes;
  }
  return b;
}

/// The plan for `n` items of inputs `widest` bytes wide at most, with the options' extras counted.
inline chunk_plan plan_for(std::int64_t n, std::size_t widest, chunk_costs costs, const stream_options& o) {
  costs.device_per_item += o.extra_device_per_item;
  costs.device_fixed += o.extra_device_fixed;
  costs.host_per_item += o.extra_host_per_item;
  costs.host_fixed += o.extra_host_fixed;
  plan_limits limits = o.plan;
  limits.max_chunk_items =
      std::max<std::int64_t>(1, std::min<std::int64_t>(limits.max_chunk_items,
                                                       static_cast<std::int64_t>(o.max_chunk_bytes / std::max<std::size_t>(widest, 1))));
  const chunk_plan plan = plan_chunks(n, costs, resolve_budget(o), limits);
  if (o.on_plan) o.on_plan(plan);
  return plan;
}

}  // namespace detail
}  // namespace lookback::pipelines
