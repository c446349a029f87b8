#pragma once
// The distributed algorithms' test cases, written once for any backend and communicator: every rank
// builds the same global array (one seed, drawn fresh on rank 0 each run), takes its slice under a
// layout, runs the distributed algorithm and checks its part of the result, every item, against the
// sequential result over the whole array. Collectives first, checks after (EXPECT only), so that a
// failing check on one rank never leaves the others waiting in a collective.
#include <lookback/algorithms/cpu/histogram.hpp>
#include <lookback/algorithms/cpu/radix_sort.hpp>
#include <lookback/distributed/histogram.hpp>
#include <lookback/distributed/reduce.hpp>
#include <lookback/distributed/scan.hpp>
#include <lookback/distributed/select.hpp>
#include <lookback/distributed/slices.hpp>
#include <lookback/distributed/sort.hpp>
#include <lookback/primitives/cpu/reduce.hpp>
#include <lookback/primitives/cpu/scan.hpp>
#include <lookback/primitives/operators.cuh>

#include <gtest/gtest.h>

#include "support/run_seed.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace lookback::dist::testing {

/// How the global array is cut into the ranks' slices.
enum class layout { balanced, uneven, empty_ranks };
inline const char* layout_name(layout l) {
  return l == layout::balanced ? "balanced" : l == layout::uneven ? "uneven" : "empty_ranks";
}
inline constexpr layout layouts[] = {layout::balanced, layout::uneven, layout::empty_ranks};

/// Rank r's items [first, last) of n: balanced shares; shares growing with the rank (rank r weighs
/// r + 1); or everything on the even ranks, the odd ones empty.
inline std::pair<std::int64_t, std::int64_t> slice_of(std::int64_t n, int p, int r, layout l) {
  if (l == layout::balanced) return {share_begin(n, p, r), share_begin(n, p, r + 1)};
  if (l == layout::uneven) {
    const std::int64_t weight = std::int64_t{p} * (p + 1) / 2;
    const auto at = [&](int k) { return n * (std::int64_t{k} * (k + 1) / 2) / weight; };
    return {at(r), at(r + 1)};
  }
  const int holders = (p + 1) / 2;
  const auto at = [&](int k) { return share_begin(n, holders, (k + 1) / 2); };
  return {at(r), r % 2 == 1 ? at(r) : at(r + 1)};
}

inline constexpr std::int64_t sizes[] = {0, 1, 31, 32, 33, 1000, 4099, 40013};

/// Whether size n runs: LOOKBACK_TEST_MAX_N caps the sizes (the sanitizer runs set it).
inline bool size_runs(std::int64_t n) {
  const char* cap = std::getenv("LOOKBACK_TEST_MAX_N");
  return cap == nullptr || *cap == '\0' || n <= std::strtoll(cap, nullptr, 10);
}

enum class spread { uniform, skewed, all_equal, negative_zeros };
inline const char* spread_name(spread s) {
  return s == spread::uniform ? "uniform" : s == spread::skewed ? "skewed" : s == spread::all_equal ? "all_equal"
                                                                                                   : "negative_zeros";
}

/// Integers, or integer-valued floats (sums stay exact, so results compare bit for bit); skewed: 90%
/// one value; all_equal: one value (both zeros for floats, which sort as equal keys); negative_zeros:
/// uniform with floats -0.0 in the first half and every seventh item (a float sum is -0.0 only where
/// every term is, so whole ranks total -0.0 and the signs show).
template <class T>
std::vector<T> make_values(std::int64_t n, std::uint64_t seed, spread s = spread::uniform) {
  std::mt19937_64 rng(seed);
  std::vector<T> out(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::uint64_t bits = rng();
    if (s == spread::all_equal) {
      out[i] = std::is_floating_point_v<T> && (bits & 1) ? T(-0.0) : T(0);
    } else if (s == spread::negative_zeros && std::is_floating_point_v<T> &&
               (static_cast<std::int64_t>(i) < n / 2 || i % 7 == 0)) {
      out[i] = T(-0.0);
    } else if (s == spread::skewed && bits % 10 != 0) {
      out[i] = T(7);
    } else if constexpr (std::is_floating_point_v<T>) {
      out[i] = static_cast<T>(static_cast<int>(bits % 201) - 100);
    } else if constexpr (sizeof(T) <= 2) {
      out[i] = static_cast<T>(bits);
    } else {
      out[i] = static_cast<T>(std::is_signed_v<T> ? static_cast<std::int64_t>(bits % 2001) - 1000
                                                  : static_cast<std::int64_t>(bits >> (64 - 8 * sizeof(T))));
    }
  }
  return out;
}

/// A seed the same on every rank, rank 0's: drawn from the run's (test::run_seed, printed, replayable
/// with LOOKBACK_TEST_SEED), the running case's name and `salt`, so that each draw takes other data.
inline std::uint64_t shared_seed(communicator& comm, std::uint64_t salt) {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string name = info == nullptr ? "" : std::string(info->test_suite_name()) + "." + info->name();
  const std::uint64_t mine = test::make_rng(std::hash<std::string>{}(name) ^ salt)();
  return allgather_host(comm, mine)[0];
}

/// One rank's run: its backend and communicator, and copies between the backend's memory and the host.
template <class Backend>
struct rank_env {
  Backend& backend;
  communicator& comm;

  template <class T>
  auto upload(const T* host, std::int64_t n) {
    auto buffer = backend.template allocate<T>(n);
    backend.copy_from_host(host, buffer.data(), n);
    return buffer;
  }
  template <class T>
  std::vector<T> download(const T* from, std::int64_t n) {
    std::vector<T> host(static_cast<std::size_t>(n));
    backend.copy_to_host(from, host.data(), n);
    comm.sync_stream(backend.stream());
    return host;
  }
  /// The next of this run's seeds (shared_seed), the same on every rank.
  std::uint64_t seed() { return shared_seed(comm, ++seeds_drawn); }
  std::uint64_t seeds_drawn = 0;
};

template <class T>
void expect_same_bits(const std::vector<T>& got, const T* want, std::int64_t n, const std::string& what) {
  ASSERT_EQ(static_cast<std::int64_t>(got.size()), n) << what;
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < n; ++i)
    if (std::memcmp(&got[static_cast<std::size_t>(i)], &want[i], sizeof(T)) != 0 && ++bad <= 3)
      ADD_FAILURE() << what << ": item " << i << " is " << +got[static_cast<std::size_t>(i)] << ", expected " << +want[i];
  EXPECT_EQ(bad, 0) << what;
}

template <class Env, class T, class Op>
void check_reduce_and_scans(Env& env, Op op, std::int64_t n, layout l, std::uint64_t seed, spread s = spread::uniform,
                            T init = T(3)) {
  const int p = env.comm.size(), r = env.comm.rank();
  const std::vector<T> all = make_values<T>(n, seed, s);
  const auto [first, last] = slice_of(n, p, r, l);
  auto in = env.upload(all.data() + first, last - first);
  std::vector<T> poison(static_cast<std::size_t>(std::max<std::int64_t>(last - first, 1)));
  std::memset(poison.data(), 0xA5, poison.size() * sizeof(T));
  auto result = env.upload(poison.data(), 1);
  auto out = env.upload(poison.data(), last - first);
  auto out_inclusive = env.upload(poison.data(), last - first);
  reduce(env.backend, env.comm, in.data(), last - first, result.data(), op);
  const std::vector<T> got_reduce = env.download(result.data(), 1);
  exclusive_scan(env.backend, env.comm, in.data(), out.data(), last - first, init, op);
  const std::vector<T> got_exclusive = env.download(out.data(), last - first);
  inclusive_scan(env.backend, env.comm, in.data(), out_inclusive.data(), last - first, op);
  const std::vector<T> got_inclusive = env.download(out_inclusive.data(), last - first);

  const std::string what = std::string(layout_name(l)) + " " + spread_name(s) + " n=" + std::to_string(n) + " rank " +
                           std::to_string(r);
  const T want_reduce = cpu::reduce<T>(all.data(), n, op, identity_of<T>(op));
  expect_same_bits(got_reduce, &want_reduce, 1, "reduce " + what);
  std::vector<T> want(all.size());
  cpu::exclusive_scan<T>(all.data(), want.data(), n, init, op);
  expect_same_bits(got_exclusive, want.data() + first, last - first, "exclusive scan " + what);
  cpu::inclusive_scan<T>(all.data(), want.data(), n, op);
  expect_same_bits(got_inclusive, want.data() + first, last - first, "inclusive scan " + what);
}

template <class Env, class Sample>
void check_histograms(Env& env, std::int64_t n, layout l, std::uint64_t seed) {
  using level = histogram::level_t<Sample>;
  const int p = env.comm.size(), r = env.comm.rank();
  std::vector<Sample> all = make_values<Sample>(n, seed);
  if constexpr (std::is_unsigned_v<Sample> && sizeof(Sample) >= 4)
    for (Sample& x : all) x %= 256;  // into the bins' range
  const auto [first, last] = slice_of(n, p, r, l);
  auto samples = env.upload(all.data() + first, last - first);
  const int bins = 37;
  const level lower = std::is_signed_v<Sample> ? level(-90) : level(3), upper = level(200);
  std::vector<level> levels{lower, level(-5), level(0), level(1), level(50), upper};
  if (!std::is_signed_v<Sample>) levels = {lower, level(5), level(9), level(60), upper};
  auto d_levels = env.upload(levels.data(), static_cast<std::int64_t>(levels.size()));
  const std::vector<unsigned long long> poison(bins, 0xA5A5A5A5A5A5A5A5ull);  // counters as CUB takes them
  const std::vector<unsigned> poison32(levels.size() - 1, 0xA5A5A5A5u);
  auto counts = env.upload(poison.data(), bins);
  auto range_counts = env.upload(poison32.data(), static_cast<std::int64_t>(poison32.size()));
  histogram_even(env.backend, env.comm, samples.data(), last - first, counts.data(), bins, lower, upper);
  const auto got_even = env.download(counts.data(), bins);
  const int range_bins = static_cast<int>(levels.size()) - 1;
  histogram_range(env.backend, env.comm, samples.data(), last - first, range_counts.data(), range_bins, d_levels.data());
  const auto got_range = env.download(range_counts.data(), range_bins);

  const std::string what = std::string(layout_name(l)) + " n=" + std::to_string(n) + " rank " + std::to_string(r);
  const auto want_even = cpu::histogram<unsigned long long>(all.data(), n, bins, histogram::even_bins<Sample>::make(bins, lower, upper));
  expect_same_bits(got_even, want_even.data(), bins, "histogram_even " + what);
  const auto want_range = cpu::histogram<unsigned>(all.data(), n, range_bins, histogram::range_bins<Sample>{levels.data(), range_bins + 1});
  expect_same_bits(got_range, want_range.data(), range_bins, "histogram_range " + what);
}

template <class T>
struct above {
  T bound;
  __host__ __device__ bool operator()(const T& x) const { return x > bound; }
};

template <class Env, class T>
void check_selects(Env& env, std::int64_t n, layout l, bool rebalance, std::uint64_t seed) {
  const int p = env.comm.size(), r = env.comm.rank();
  const std::vector<T> all = make_values<T>(n, seed);
  std::vector<std::uint8_t> flags(all.size());
  std::mt19937 rng(static_cast<unsigned>(seed));
  for (auto& f : flags) f = static_cast<std::uint8_t>(rng() % 3 == 0 ? rng() % 256 : 0);
  const auto [first, last] = slice_of(n, p, r, l);
  auto in = env.upload(all.data() + first, last - first);
  auto d_flags = env.upload(flags.data() + first, last - first);
  const T bound = T(10);
  auto by_pred = select_if(env.backend, env.comm, in.data(), last - first, above<T>{bound}, select_options{rebalance});
  const auto got_pred = env.download(by_pred.items.data(), by_pred.count);
  auto by_flag = select_flagged(env.backend, env.comm, in.data(), d_flags.data(), last - first, select_options{rebalance});
  const auto got_flag = env.download(by_flag.items.data(), by_flag.count);

  const std::string what = std::string(layout_name(l)) + (rebalance ? " rebalanced" : "") + " n=" + std::to_string(n) +
                           " rank " + std::to_string(r);
  std::vector<T> want_pred, want_flag;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i] > bound) want_pred.push_back(all[i]);
    if (flags[i] != 0) want_flag.push_back(all[i]);
  }
  for (const auto* run : {&by_pred, &by_flag}) {
    const auto& want = run == &by_pred ? want_pred : want_flag;
    EXPECT_EQ(run->total, static_cast<std::int64_t>(want.size())) << what;
    if (rebalance) {
      EXPECT_EQ(run->first, share_begin(run->total, p, r)) << what;
      EXPECT_EQ(run->count, share_size(run->total, p, r)) << what;
    }
    const auto& got = run == &by_pred ? got_pred : got_flag;
    if (run->first + run->count <= static_cast<std::int64_t>(want.size()))
      expect_same_bits(got, want.data() + run->first, run->count, (run == &by_pred ? "select_if " : "select_flagged ") + what);
    else
      ADD_FAILURE() << what << ": items [" << run->first << ", " << run->first + run->count << ") past the " << want.size() << " kept";
  }
}

/// Keys of every spread, with their global positions as values (so stability shows), sorted across the
/// ranks: each rank's share must be the sequential stable sort's, bit for bit, and exactly balanced.
template <class Env, class Key, class Value>
void check_sort(Env& env, std::int64_t n, layout l, spread s, sort_options o, std::uint64_t seed) {
  const int p = env.comm.size(), r = env.comm.rank();
  const std::vector<Key> all = make_values<Key>(n, seed, s);
  std::vector<Value> positions(all.size());
  for (std::size_t i = 0; i < positions.size(); ++i) positions[i] = static_cast<Value>(i);
  const auto [first, last] = slice_of(n, p, r, l);
  auto keys = env.upload(all.data() + first, last - first);
  auto values = env.upload(positions.data() + first, last - first);
  auto sorted = sort_pairs(env.backend, env.comm, keys.data(), values.data(), last - first, o);
  const auto got_keys = env.download(sorted.keys.data(), static_cast<std::int64_t>(sorted.keys.size()));
  const auto got_values = env.download(sorted.values.data(), static_cast<std::int64_t>(sorted.values.size()));
  auto keys_only = sort_keys(env.backend, env.comm, keys.data(), last - first, o);
  const auto got_keys_only = env.download(keys_only.keys.data(), static_cast<std::int64_t>(keys_only.keys.size()));

  const int end = o.end_bit < 0 ? 8 * static_cast<int>(sizeof(Key)) : o.end_bit;
  const std::string what = std::string(layout_name(l)) + " " + spread_name(s) + (o.descending ? " descending" : "") +
                           " bits " + std::to_string(o.begin_bit) + ":" + std::to_string(end) + " n=" +
                           std::to_string(n) + " parts " + std::to_string(o.exchange_parts) + " rank " +
                           std::to_string(r);
  const auto order = o.descending ? cpu::stable_sort_order<Key, true>(all.data(), n, o.begin_bit, end)
                                  : cpu::stable_sort_order<Key, false>(all.data(), n, o.begin_bit, end);
  std::vector<Key> want_keys(all.size());
  std::vector<Value> want_values(all.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    want_keys[i] = all[static_cast<std::size_t>(order[i])];
    want_values[i] = positions[static_cast<std::size_t>(order[i])];
  }
  std::int64_t moved = 0;  // keys whose sorted place is on another rank than their slice
  for (std::size_t i = 0; i < order.size(); ++i) {
    int from = 0, to = 0;
    while (slice_of(n, p, from, l).second <= order[i]) ++from;
    while (share_begin(n, p, to + 1) <= static_cast<std::int64_t>(i)) ++to;
    moved += from != to ? 1 : 0;
  }
  EXPECT_EQ(sorted.total, n) << what;
  EXPECT_EQ(sorted.moved, moved) << what;
  EXPECT_EQ(sorted.first, share_begin(n, p, r)) << what;
  const std::int64_t share = share_size(n, p, r);
  expect_same_bits(got_keys, want_keys.data() + share_begin(n, p, r), share, "sorted keys " + what);
  expect_same_bits(got_values, want_values.data() + share_begin(n, p, r), share, "sorted values " + what);
  expect_same_bits(got_keys_only, want_keys.data() + share_begin(n, p, r), share, "sorted keys alone " + what);
}

/// Every case of every function, for one rank's environment.
template <class Env>
void run_reduce_and_scan_cases(Env& env) {
  const std::uint64_t seed = env.seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (layout l : layouts)
    for (std::int64_t n : sizes) {
      if (!size_runs(n)) continue;
      check_reduce_and_scans<Env, std::int32_t>(env, sum{}, n, l, seed);
      check_reduce_and_scans<Env, std::uint32_t>(env, maximum{}, n, l, seed + 1);
      check_reduce_and_scans<Env, std::int64_t>(env, minimum{}, n, l, seed + 2);
      check_reduce_and_scans<Env, std::uint64_t>(env, sum{}, n, l, seed + 3);
      check_reduce_and_scans<Env, float>(env, sum{}, n, l, seed + 4);
      check_reduce_and_scans<Env, double>(env, maximum{}, n, l, seed + 5);
      // Ranks whose items are all -0.0 total -0.0, and the ranks after them keep the sign a single
      // scan would; the reduce stays +0.0 (from the identity), as lookback::reduce and CUB's.
      check_reduce_and_scans<Env, float>(env, sum{}, n, l, seed + 6, spread::negative_zeros, -0.0f);
      check_reduce_and_scans<Env, double>(env, sum{}, n, l, seed + 7, spread::negative_zeros, 0.0);
    }
}

template <class Env>
void run_histogram_cases(Env& env) {
  const std::uint64_t seed = env.seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (layout l : layouts)
    for (std::int64_t n : sizes) {
      if (!size_runs(n)) continue;
      check_histograms<Env, std::uint8_t>(env, n, l, seed);
      check_histograms<Env, std::uint16_t>(env, n, l, seed + 1);
      check_histograms<Env, std::int32_t>(env, n, l, seed + 2);
      check_histograms<Env, std::uint32_t>(env, n, l, seed + 3);
      check_histograms<Env, float>(env, n, l, seed + 4);
      check_histograms<Env, double>(env, n, l, seed + 5);
    }
}

template <class Env>
void run_select_cases(Env& env) {
  const std::uint64_t seed = env.seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (layout l : layouts)
    for (std::int64_t n : sizes)
      for (bool rebalance : {false, true}) {
        if (!size_runs(n)) continue;
        check_selects<Env, std::int32_t>(env, n, l, rebalance, seed);
        check_selects<Env, double>(env, n, l, rebalance, seed + 1);
        check_selects<Env, std::uint64_t>(env, n, l, rebalance, seed + 2);
      }
}

template <class Env, class Key>
void run_sort_cases_for(Env& env, std::uint64_t seed) {
  constexpr int width = 8 * static_cast<int>(sizeof(Key));
  for (layout l : layouts)
    for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{33}, std::int64_t{4099}, std::int64_t{40013}})
      for (spread s : {spread::uniform, spread::skewed, spread::all_equal}) {
        if (!size_runs(n)) continue;
        // Exchanged in parts: as chosen by size (one, at these sizes), and in 3 and 5 (parts empty at
        // the small sizes).
        check_sort<Env, Key, std::uint32_t>(env, n, l, s, sort_options{}, seed);
        check_sort<Env, Key, std::uint64_t>(env, n, l, s, sort_options{true, 0, -1, 3}, seed + 1);
        check_sort<Env, Key, std::uint32_t>(env, n, l, s, sort_options{false, width / 4, width - 1, 5}, seed + 2);
        check_sort<Env, Key, std::uint32_t>(env, n, l, s, sort_options{true, 1, width / 2 + 1, 2}, seed + 3);
      }
}

/// Sort cases for the given key types (all eight by default).
template <class Env, class... Keys>
void run_sort_cases(Env& env) {
  const std::uint64_t seed = env.seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  if constexpr (sizeof...(Keys) == 0) {
    run_sort_cases<Env, std::uint8_t, std::uint16_t, std::uint32_t, std::int32_t, float, std::uint64_t, std::int64_t,
                   double>(env);
  } else {
    std::uint64_t salt = 0;
    (run_sort_cases_for<Env, Keys>(env, seed + 10 * salt++), ...);
  }
}

}  // namespace lookback::dist::testing
