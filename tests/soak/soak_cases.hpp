#pragma once
// One random case of the soak: an operation (reduction and scan, either deterministic or not,
// compaction, sort or histogram), a dtype it takes, a size from 0 to 2^26, fresh data and, for a third
// of them, a device budget that streams large inputs in chunks, all drawn from one generator, run
// through the commands' GPU path with --verify's comparison of ours and CUB's (or, deterministic, the
// CPU's association; cli/array_ops.hpp).
#include <cstdint>
#include <random>
#include <string>

namespace lookback::soak {

inline constexpr int max_log2_size = 26;

/// Draws a case from `rng`, says what it is in `what` (before running it, so a failure can name it)
/// and runs it. A mismatch throws cli::cli_error (exit code software) naming the first differing element.
void run_case(std::mt19937_64& rng, std::string& what);

}  // namespace lookback::soak
