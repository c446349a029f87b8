#pragma once
// The deterministic scan's association on the CPU, the reference the GPU's bits are checked against
// (deterministic_scan.cuh states the promise). Granules of 2176 items: 4 warps of 32 runs of 17 items.
// A run folds its items left to right; a warp scans its run totals Kogge-Stone; a granule folds its
// warp totals in order; a window of 32 granules folds their aggregates left to right; the window
// aggregates fold left to right after the start value. Items past the end are absent from every fold
// (never the identity), so this reference needs none (the GPU's calls take Op's identity to pad tiles,
// which the association never folds in).
#include <lookback/primitives/cpu/wrapping.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>

namespace lookback::cpu {

inline constexpr int deterministic_run_items = 17;
inline constexpr int deterministic_granule_warps = 4;
inline constexpr std::int64_t deterministic_granule_items = deterministic_run_items * 32 * deterministic_granule_warps;
inline constexpr std::int64_t deterministic_window_granules = 32;

/// out (may be null: the total alone) gets the exclusive or inclusive scan of in[0, n) after `start`
/// (none: a plain inclusive scan); returns the total, the fold of start and the window aggregates
/// (empty only when n == 0 and there is no start).
template <class T, class Op>
std::optional<T> deterministic_scan(const T* in, T* out, std::int64_t n, Op op, std::optional<T> start, bool exclusive) {
  // As the GPU's calls refuse it: item 0 of an exclusive scan has nothing to be.
  if (exclusive && !start && n > 0)
    throw std::invalid_argument("lookback::cpu::deterministic_scan: an exclusive scan needs a start value");
  using part = std::optional<T>;
  const auto f = wrapping_op<T>(op);
  const auto then = [&f](const part& acc, const T& v) -> part { return acc ? f(*acc, v) : v; };
  const auto combine = [&then](const part& a, const part& b) -> part { return b ? then(a, *b) : a; };
  constexpr int runs_per_warp = 32;
  part window_prefix = start;
  part local;  // the window's granules so far, folded
  for (std::int64_t g0 = 0; g0 < n; g0 += deterministic_granule_items) {
    if (g0 % (deterministic_window_granules * deterministic_granule_items) == 0 && g0 > 0) {
      window_prefix = combine(window_prefix, local);
      local.reset();
    }
    const part prefix = combine(window_prefix, local);
    const std::int64_t valid = std::min(deterministic_granule_items, n - g0);
    std::array<std::array<part, runs_per_warp>, deterministic_granule_warps> x{};
    std::array<part, deterministic_granule_warps> warp_total{};
    for (int w = 0; w < deterministic_granule_warps; ++w) {
      for (int l = 0; l < runs_per_warp; ++l) {
        const std::int64_t first = (std::int64_t{w} * runs_per_warp + l) * deterministic_run_items;
        for (std::int64_t k = first; k < first + deterministic_run_items && k < valid; ++k) x[w][l] = then(x[w][l], in[g0 + k]);
      }
      // Kogge-Stone: every lane at once, so lane l combines lane l - offset's value from before the step.
      for (int offset = 1; offset < runs_per_warp; offset <<= 1)
        for (int l = runs_per_warp - 1; l >= offset; --l) x[w][l] = combine(x[w][l - offset], x[w][l]);
      warp_total[w] = x[w][runs_per_warp - 1];
    }
    part acc;
    for (std::int64_t i = 0; i < valid; ++i) {
      const int run = static_cast<int>(i / deterministic_run_items);
      const int w = run / runs_per_warp, l = run % runs_per_warp;
      if (i % deterministic_run_items == 0) {
        acc = prefix;
        if (w > 0) {
          part earlier = warp_total[0];
          for (int e = 1; e < w; ++e) earlier = combine(earlier, warp_total[e]);
          acc = then(acc, *earlier);
        }
        if (l > 0) acc = then(acc, *x[w][l - 1]);
      }
      if (exclusive) {
        if (out != nullptr) out[g0 + i] = *acc;
        acc = then(acc, in[g0 + i]);
      } else {
        acc = then(acc, in[g0 + i]);
        if (out != nullptr) out[g0 + i] = *acc;
      }
    }
    part aggregate;
    for (int w = 0; w < deterministic_granule_warps; ++w) aggregate = combine(aggregate, warp_total[w]);
    local = then(local, *aggregate);
  }
  return combine(window_prefix, local);
}

}  // namespace lookback::cpu
