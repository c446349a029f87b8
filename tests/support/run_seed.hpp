#pragma once
// The run's random seed, for every test binary: fresh each run, printed, replayable.
#include <cstdint>
#include <random>

namespace lookback::test {

/// The run's seed: LOOKBACK_TEST_SEED when set, else from std::random_device; printed once.
std::uint64_t run_seed();

/// A generator seeded from the run seed and `salt`, so each case draws different data.
std::mt19937_64 make_rng(std::uint64_t salt);

}  // namespace lookback::test
