#pragma once
// How a run is cut into chunks, decided before anything is allocated: one chunk (in-core) when the
// whole input and its outputs fit both budgets and the largest chunk, otherwise chunks of equal size
// streamed through `depth` slots, each slot holding one chunk's inputs and outputs on the device and
// its staging on the host.
#include <lookback/pipelines/stream_error.hpp>

#include <algorithm>
#include <cstdio>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

namespace lookback::pipelines {

/// What lookback may take: on the device (buffers, temporary storage) and on the host (pinned staging,
/// buffers of the CPU path).
struct budget {
  std::size_t device_bytes = 0;
  std::size_t host_bytes = 0;
};

/// What one chunk of c items costs, per slot (device_per_item, host_per_item) and once for the run
/// (temp_bytes(c): temporary storage, which the slots share on the one compute stream; fixed: counters,
/// carried values, histogram bins).
struct chunk_costs {
  std::size_t device_per_item = 0;
  std::size_t host_per_item = 0;
  std::size_t device_fixed = 0;
  std::size_t host_fixed = 0;
  std::function<std::size_t(std::int64_t chunk_items)> temp_bytes = [](std::int64_t) { return std::size_t{0}; };
};

struct chunk_plan {
  std::int64_t items = 0;
  std::int64_t chunk_items = 0;  // every chunk's but the last
  std::int64_t chunks = 0;
  int depth = 1;                 // slots in flight
  [[nodiscard]] bool streamed() const noexcept { return chunks > 1; }
  [[nodiscard]] std::int64_t first_of(std::int64_t chunk) const noexcept { return chunk * chunk_items; }
  [[nodiscard]] std::int64_t count_of(std::int64_t chunk) const noexcept {
    return std::min(chunk_items, items - chunk * chunk_items);
  }
};

struct plan_limits {
  std::int64_t max_chunk_items = std::int64_t{1} << 40;  // the widest chunk (streamed or not)
  std::int64_t min_chunk_items = 1024;                   // below this, the budgets are refused
  int depth = 3;                                         // copy in, compute, copy out
  /// Streamed chunks hold a multiple of this many items (the deterministic scan's window, so that the
  /// chunks give one scan's bits).
  std::int64_t chunk_multiple = 1;
};

inline std::size_t device_need(const chunk_costs& c, std::int64_t items, int depth) {
  return static_cast<std::size_t>(depth) * c.device_per_item * static_cast<std::size_t>(items) + c.temp_bytes(items) +
         c.device_fixed;
}
inline std::size_t host_need(const chunk_costs& c, std::int64_t items, int depth) {
  return static_cast<std::size_t>(depth) * c.host_per_item * static_cast<std::size_t>(items) + c.host_fixed;
}

/// "512 bytes", "1.0 KiB", "64.0 MiB", "2.5 GiB"
inline std::string size_text(std::size_t bytes) {
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  double value = static_cast<double>(bytes) / 1024;
  int unit = 0;
  while (value >= 1024 && unit < 3) value /= 1024, ++unit;
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
  return text;
}

/// The plan for n items; throws stream_error(kind::budget) naming the minimum each budget needs when
/// it cannot hold a chunk of limits.min_chunk_items (or all n, when fewer).
inline chunk_plan plan_chunks(std::int64_t n, const chunk_costs& costs, const budget& b, const plan_limits& limits = {}) {
  if (n < 0) throw std::invalid_argument("lookback::pipelines: negative item count " + std::to_string(n));
  if (limits.depth < 1 || limits.min_chunk_items < 1 || limits.chunk_multiple < 1 || limits.max_chunk_items < 1)
    throw std::invalid_argument("lookback::pipelines: plan_limits needs a depth, chunk sizes and a chunk multiple of "
                                "at least 1");
  const auto fits = [&](std::int64_t items, int depth) {
    return device_need(costs, items, depth) <= b.device_bytes && host_need(costs, items, depth) <= b.host_bytes;
  };
  chunk_plan plan;
  plan.items = n;
  if (n <= limits.max_chunk_items && fits(n, 1)) {
    plan.chunk_items = n;
    plan.chunks = n > 0 ? 1 : 0;
    plan.depth = 1;
    return plan;
  }
  const int depth = limits.depth;
  const std::int64_t smallest = std::min(n, std::max(limits.min_chunk_items, limits.chunk_multiple));
  if (smallest > limits.max_chunk_items)
    throw std::invalid_argument("lookback::pipelines: chunks of at least " + std::to_string(smallest) +
                                " items (min_chunk_items, chunk_multiple) cannot stay within max_chunk_items " +
                                std::to_string(limits.max_chunk_items));
  if (!fits(smallest, depth)) {
    // Name the budget that is short, or both.
    const std::size_t device = device_need(costs, smallest, depth), host = host_need(costs, smallest, depth);
    std::string needs;
    if (device > b.device_bytes)
      needs = size_text(device) + " of device memory (limit " + size_text(b.device_bytes) + ")";
    if (host > b.host_bytes)
      needs += (needs.empty() ? "" : " and ") + size_text(host) + " of host memory (limit " + size_text(b.host_bytes) + ")";
    throw stream_error(stream_error::kind::budget, "the memory limits are too small for one chunk of " +
                                                       std::to_string(smallest) + " items: it needs at least " + needs);
  }
  // The widest chunk that fits, by bisection (the needs grow with the chunk).
  std::int64_t lo = smallest, hi = std::min(n, limits.max_chunk_items);
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo + 1) / 2;
    if (fits(mid, depth))
      lo = mid;
    else
      hi = mid - 1;
  }
  if (lo < n) lo = std::max(limits.chunk_multiple, lo / limits.chunk_multiple * limits.chunk_multiple);
  plan.chunk_items = lo;
  plan.chunks = (n + lo - 1) / lo;
  plan.depth = static_cast<int>(std::min<std::int64_t>(depth, plan.chunks));
  return plan;
}

/// "in-core", or "streamed in 12 chunks of 16777216"
inline std::string describe(const chunk_plan& plan) {
  if (!plan.streamed()) return "in-core";
  return "streamed in " + std::to_string(plan.chunks) + " chunks of " + std::to_string(plan.chunk_items);
}

}  // namespace lookback::pipelines
