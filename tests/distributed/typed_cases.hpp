#pragma once
// The command's typed distributed runs (typed/dist_ops.hpp) on one rank against the single-process
// CPU references over the whole array: every rank builds the same array and checks its own part.
#include "distributed/dist_cases.hpp"
#include "typed/dist_ops.hpp"
#include "typed/histogram_ops.hpp"
#include "typed/select_ops.hpp"
#include "typed/sort_ops.hpp"

namespace lookback::dist::testing {

template <class T>
std::vector<std::byte> as_bytes(const std::vector<T>& v) {
  std::vector<std::byte> out(v.size() * sizeof(T));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

inline void expect_bytes(const std::vector<std::byte>& got, const std::byte* want, std::size_t bytes, const std::string& what) {
  ASSERT_EQ(got.size(), bytes) << what;
  EXPECT_EQ(std::memcmp(got.data(), want, bytes), 0) << what << ": differs from the single-process result";
}

inline void check_typed_runs(typed::dist_rank& r) {
  const int p = r.comm.size(), rank = r.comm.rank();
  const std::uint64_t seed = shared_seed(r.comm, 0);
  for (std::int64_t n : {std::int64_t{0}, std::int64_t{7}, std::int64_t{10007}}) {
    for (layout l : layouts) {
      const auto [first, last] = slice_of(n, p, rank, l);
      const std::int64_t count = last - first;
      const std::string what = std::string(layout_name(l)) + " n=" + std::to_string(n) + " rank " + std::to_string(rank);

      // Scan: int32, exclusive from 5.
      const auto ints = make_values<std::int32_t>(n, seed);
      typed::scan_spec scan{io::dtype::int32, typed::op_kind::sum, false, *typed::parse_scalar(io::dtype::int32, "5")};
      std::vector<std::int32_t> want_scan(ints.size()), got_scan(static_cast<std::size_t>(count), -1);
      typed::scan_cpu(scan, ints.data(), want_scan.data(), n);
      typed::dist_scan(r, scan, ints.data() + first, got_scan.data(), count);
      expect_bytes(as_bytes(got_scan), reinterpret_cast<const std::byte*>(want_scan.data() + first),
                   static_cast<std::size_t>(count) * 4, "scan " + what);

      // Reduce: float64 max.
      const auto doubles = make_values<double>(n, seed + 1);
      double want_max = 0, got_max = 1;
      typed::reduce_cpu(io::dtype::float64, typed::op_kind::max, doubles.data(), &want_max, n);
      typed::dist_reduce(r, io::dtype::float64, typed::op_kind::max, doubles.data() + first, count, &got_max);
      EXPECT_EQ(got_max, want_max) << "reduce " << what;

      // Histogram: float32 samples, 64 bins over [-100, 100), uint32 counters.
      const auto floats = make_values<float>(n, seed + 2);
      const typed::histogram_spec hist{io::dtype::float32, io::dtype::uint32, 64, -100, 100};
      std::vector<unsigned> want_hist(64), got_hist(64, 0xA5A5A5A5u);
      typed::histogram_even_cpu(hist, floats.data(), n, want_hist.data());
      typed::dist_histogram(r, hist, floats.data() + first, count, got_hist.data());
      EXPECT_EQ(got_hist, want_hist) << "histogram " << what;

      // Compaction: int64 by predicate, then by flags.
      const auto longs = make_values<std::int64_t>(n, seed + 3);
      typed::select_spec by_value{io::dtype::int64, false, typed::compare_kind::nonzero, {}};
      ASSERT_FALSE(typed::parse_predicate(io::dtype::int64, "gt:10", by_value));
      std::vector<std::int64_t> want_kept(longs.size());
      want_kept.resize(static_cast<std::size_t>(typed::select_cpu(by_value, longs.data(), nullptr, want_kept.data(), n)));
      const typed::dist_kept kept = typed::dist_select(r, by_value, longs.data() + first, nullptr, count);
      if (kept.first + kept.count <= static_cast<std::int64_t>(want_kept.size()))
        expect_bytes(kept.items, reinterpret_cast<const std::byte*>(want_kept.data() + kept.first),
                     static_cast<std::size_t>(kept.count) * 8, "select_if " + what);
      else
        ADD_FAILURE() << "select_if " << what << ": kept items past the end";
      EXPECT_EQ(kept.total, static_cast<std::int64_t>(want_kept.size())) << what;
      std::vector<std::uint8_t> flags(ints.size());
      for (std::size_t i = 0; i < flags.size(); ++i) flags[i] = static_cast<std::uint8_t>(ints[i] % 3 == 0);
      const typed::select_spec by_flag{io::dtype::int64, true, typed::compare_kind::nonzero, {}};
      std::vector<std::int64_t> want_flagged(longs.size());
      want_flagged.resize(static_cast<std::size_t>(typed::select_cpu(by_flag, longs.data(), flags.data(), want_flagged.data(), n)));
      const typed::dist_kept flagged = typed::dist_select(r, by_flag, longs.data() + first, flags.data() + first, count);
      EXPECT_EQ(flagged.total, static_cast<std::int64_t>(want_flagged.size())) << what;
      if (flagged.first + flagged.count <= flagged.total && flagged.total == static_cast<std::int64_t>(want_flagged.size()))
        expect_bytes(flagged.items, reinterpret_cast<const std::byte*>(want_flagged.data() + flagged.first),
                     static_cast<std::size_t>(flagged.count) * 8, "select_flagged " + what);

      // Sort: float32 keys with uint64 values descending; uint16 keys alone on bits 3:11.
      std::vector<std::uint64_t> positions(floats.size());
      for (std::size_t i = 0; i < positions.size(); ++i) positions[i] = i;
      const typed::sort_spec pairs{io::dtype::float32, 8, true, 0, 32};
      std::vector<float> want_keys(floats.size());
      std::vector<std::uint64_t> want_values(floats.size());
      typed::sort_cpu(pairs, floats.data(), want_keys.data(), positions.data(), want_values.data(), n);
      const typed::dist_sorted sorted = typed::dist_sort(r, pairs, floats.data() + first, positions.data() + first, count);
      EXPECT_EQ(sorted.first, share_begin(n, p, rank)) << what;
      EXPECT_EQ(sorted.count, share_size(n, p, rank)) << what;
      if (sorted.first == share_begin(n, p, rank) && sorted.count == share_size(n, p, rank)) {
        expect_bytes(sorted.keys, reinterpret_cast<const std::byte*>(want_keys.data() + sorted.first),
                     static_cast<std::size_t>(sorted.count) * 4, "sorted keys " + what);
        expect_bytes(sorted.values, reinterpret_cast<const std::byte*>(want_values.data() + sorted.first),
                     static_cast<std::size_t>(sorted.count) * 8, "sorted values " + what);
      }
      const auto shorts = make_values<std::uint16_t>(n, seed + 4, spread::skewed);
      const typed::sort_spec narrow{io::dtype::uint16, 0, false, 3, 11};
      std::vector<std::uint16_t> want_shorts(shorts.size());
      typed::sort_cpu(narrow, shorts.data(), want_shorts.data(), nullptr, nullptr, n);
      const typed::dist_sorted sorted_shorts = typed::dist_sort(r, narrow, shorts.data() + first, nullptr, count);
      if (sorted_shorts.first == share_begin(n, p, rank) && sorted_shorts.count == share_size(n, p, rank))
        expect_bytes(sorted_shorts.keys, reinterpret_cast<const std::byte*>(want_shorts.data() + sorted_shorts.first),
                     static_cast<std::size_t>(sorted_shorts.count) * 2, "sorted uint16 keys " + what);
      else
        ADD_FAILURE() << "sorted uint16 keys " << what << ": share " << sorted_shorts.first << "+" << sorted_shorts.count;
    }
  }
}

}  // namespace lookback::dist::testing
