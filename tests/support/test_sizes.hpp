#pragma once
// Problem sizes the GPU tests sweep, capped by LOOKBACK_TEST_MAX_N (the sanitizer run sets it low).
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace lookback::test {

inline std::int64_t max_test_size() {
  const char* env = std::getenv("LOOKBACK_TEST_MAX_N");
  return env != nullptr ? std::strtoll(env, nullptr, 10) : (std::int64_t{1} << 30);
}

/// 0, around a warp, around one and two tiles, a prime, 2^20+7, 2^24; those above the cap dropped.
inline std::vector<std::int64_t> sizes_around(std::int64_t tile) {
  std::vector<std::int64_t> sizes;
  for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{31}, std::int64_t{32}, std::int64_t{33},
                         std::int64_t{1000}, tile - 1, tile, tile + 1, 2 * tile + 1, std::int64_t{999983},
                         (std::int64_t{1} << 20) + 7, std::int64_t{1} << 24})
    if (n <= max_test_size()) sizes.push_back(n);
  return sizes;
}

/// The first whole number of large tiles past `small_max`, where a policy changes to large tiles.
inline std::int64_t whole_large_tiles_past(std::int64_t small_max, std::int64_t large_tile) {
  return (small_max / large_tile + 1) * large_tile;
}

/// sizes_around(small_tile), then the size where a policy changes from small tiles to large ones and
/// one past it, and around the first whole number of large tiles past that; those past the change also
/// go to `large_boundaries`.
inline std::vector<std::int64_t> sizes_around_switch(std::int64_t small_tile, std::int64_t small_max,
                                                     std::int64_t large_tile,
                                                     std::vector<std::int64_t>& large_boundaries) {
  auto sizes = sizes_around(small_tile);
  const std::int64_t whole = whole_large_tiles_past(small_max, large_tile);
  for (const std::int64_t n : {small_max, small_max + 1, whole - 1, whole, whole + 1}) {
    if (n > max_test_size()) continue;
    sizes.push_back(n);
    if (n > small_max) large_boundaries.push_back(n);
  }
  return sizes;
}

}  // namespace lookback::test
