#pragma once
// Tuning of the histogram kernels, kept apart from the code.
namespace lookback::policy {

/// 256 threads with 4 independent 16-byte loads each per trip; one privatised copy of the bins per
/// warp while the copies fit in `shared_budget_bytes` (fewer copies for more bins, down to one; past
/// one copy's worth, counts go straight to global memory).
struct histogram {
  static constexpr int threads = 256;
  static constexpr int vectors_in_flight = 4;
  static constexpr int shared_budget_bytes = 96 * 1024;
};

}  // namespace lookback::policy
