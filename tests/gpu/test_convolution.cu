// 1D and 2D convolution and the FIR filter against long-double CPU references: float and double, every
// boundary policy, masks in each tier (small and large kernel parameters, global memory), sizes around
// the tiles; outputs poisoned first, every element checked to within the summation's rounding.
#include "support/gpu_test.hpp"
#include "support/random_values.hpp"
#include "support/real_data.hpp"
#include "support/test_sizes.hpp"

#include <lookback/primitives/convolution.cuh>
#include <lookback/primitives/cpu/convolution.hpp>
#include <lookback/primitives/ladder/convolution_ladder.cuh>
#include <lookback/primitives/device_buffer.cuh>
#include <lookback/primitives/stream.cuh>

#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <string>
#include <vector>

namespace lookback::test {
namespace {

const boundary all_boundaries[] = {boundary::zero, boundary::clamp, boundary::mirror};
const char* boundary_name(boundary b) { return b == boundary::zero ? "zero" : b == boundary::clamp ? "clamp" : "mirror"; }

/// Each output within a few roundings per tap of the exact sum (the GPU sums in T, fused). Inputs and
/// taps lie in [-1, 1], so no partial sum exceeds the tap count.
template <class T>
void expect_close(const std::vector<long double>& expected, const std::vector<T>& got, int taps,
                  const std::string& what) {
  expect_within(expected, got, 2 * std::numeric_limits<T>::epsilon() * static_cast<long double>(taps) + 1e-30L, what);
}

template <class T>
void check_1d(std::int64_t n, int width, boundary b, std::uint64_t salt) {
  auto rng = make_rng(salt);
  const auto x = random_reals<T>(static_cast<std::size_t>(n), rng);
  const auto mask = random_reals<T>(static_cast<std::size_t>(width), rng);
  const cuda_stream stream;
  const auto d_x = to_device(x, stream);
  device_buffer<T> d_y(x.size(), stream);
  poison(d_y);
  convolve1d(d_x.data(), d_y.data(), n, mask.data(), width, b, stream.get());
  expect_close(cpu::correlate1d(x, mask, width / 2, b), to_host(d_y), width,
               std::to_string(sizeof(T) * 8) + "-bit convolve1d n=" + std::to_string(n) + " width=" +
                   std::to_string(width) + " " + boundary_name(b));
}

template <class T>
class convolution_1d : public gpu_test {};
TYPED_TEST_SUITE(convolution_1d, real_types);

TYPED_TEST(convolution_1d, every_tier_boundary_and_tile_edge) {
  const std::int64_t tile = policy::convolution1d::tile_outputs;
  // 20001 taps lie past the constant bank's 64 KiB even in float: the global-memory path.
  for (const int width : {1, 3, 5, 9, 31, 63, 65, 127, 1025, 2047, 2049, 20001})
    for (const boundary b : all_boundaries)
      for (const std::int64_t n : sizes_around(tile)) {
        // Wide masks cost n * width on the CPU: the boundary sizes only.
        if ((width > 63 && n > 2 * tile + 1) || (width > 2049 && n > tile + 1)) continue;
        check_1d<TypeParam>(n, width, b, static_cast<std::uint64_t>(n) * 7 + width * 3 + static_cast<int>(b));
        if (this->HasFailure()) return;
      }
}

TYPED_TEST(convolution_1d, inputs_shorter_than_the_mask) {
  for (const boundary b : all_boundaries)
    for (const std::int64_t n : {1, 2, 5})
      for (const int width : {9, 31}) check_1d<TypeParam>(n, width, b, static_cast<std::uint64_t>(n) + width);
}

TYPED_TEST(convolution_1d, fir_filter_is_lfilter_with_zero_state) {
  using T = TypeParam;
  // fir_filter runs on convolve1d's tiles: their edges too.
  const std::int64_t tile = policy::convolution1d::tile_outputs;
  for (const int taps : {1, 4, 64, 1024, 3000})
    for (const std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{31}, std::int64_t{32}, std::int64_t{33},
                                 std::int64_t{100}, std::int64_t{2049}, tile - 1, tile, tile + 1, std::int64_t{100003}}) {
      if (n > max_test_size()) continue;
      auto rng = make_rng(static_cast<std::uint64_t>(taps) * 11 + static_cast<std::uint64_t>(n));
      const auto x = random_reals<T>(static_cast<std::size_t>(n), rng);
      const auto h = random_reals<T>(static_cast<std::size_t>(taps), rng);
      std::vector<long double> expected(x.size());
      for (std::int64_t i = 0; i < n; ++i)
        for (int k = 0; k < taps && k <= i; ++k)
          expected[static_cast<std::size_t>(i)] += static_cast<long double>(h[static_cast<std::size_t>(k)]) * x[static_cast<std::size_t>(i - k)];
      const cuda_stream stream;
      const auto d_x = to_device(x, stream);
      device_buffer<T> d_y(x.size(), stream);
      poison(d_y);
      fir_filter(d_x.data(), d_y.data(), n, h.data(), taps, stream.get());
      expect_close(expected, to_host(d_y), taps, "fir taps=" + std::to_string(taps) + " n=" + std::to_string(n));
      if (this->HasFailure()) return;
    }
}

template <class T>
class convolution_2d : public gpu_test {};
TYPED_TEST_SUITE(convolution_2d, real_types);

TYPED_TEST(convolution_2d, every_tier_boundary_and_pitch) {
  using T = TypeParam;
  // 200 x 203 and 200 x 256 have tiles of the 64 x 64 blocked kernel that lie wholly inside, halos
  // included; 256 columns without padding take its 16-byte vector loads.
  const std::pair<int, int> images[] = {{1, 1}, {7, 5}, {33, 31}, {64, 64}, {100, 257}, {200, 203}, {200, 256}};
  const std::pair<int, int> masks[] = {{1, 1}, {3, 3}, {5, 5}, {7, 7}, {3, 7}, {9, 9}, {11, 11}, {47, 47}};
  for (const auto& [height, width] : images)
    for (const auto& [mh, mw] : masks)
      for (const boundary b : all_boundaries)
        for (const int pad : {0, 3}) {
          auto rng = make_rng(static_cast<std::uint64_t>(height) * 1000 + width * 10 + mh + pad);
          const auto x = random_reals<T>(static_cast<std::size_t>(height) * static_cast<std::size_t>(width), rng);
          const auto mask = random_reals<T>(static_cast<std::size_t>(mh) * static_cast<std::size_t>(mw), rng);
          const int pitch = width + pad;
          // Rows padded to the pitch on both sides; the padding is poison the kernel must not read as data.
          std::vector<T> padded(static_cast<std::size_t>(height) * static_cast<std::size_t>(pitch), T(1e30));
          for (int r = 0; r < height; ++r)
            for (int c = 0; c < width; ++c)
              padded[static_cast<std::size_t>(r) * pitch + c] = x[static_cast<std::size_t>(r) * width + c];
          const cuda_stream stream;
          const auto d_x = to_device(padded, stream);
          device_buffer<T> d_y(padded.size(), stream);
          poison(d_y);
          convolve2d(d_x.data(), pitch, d_y.data(), pitch, height, width, mask.data(), mh, mw, b, stream.get());
          const auto got_padded = to_host(d_y);
          std::vector<T> got;
          T unwritten;
          std::memset(&unwritten, tolerance_poison(true), sizeof(T));
          for (int r = 0; r < height; ++r) {
            for (int c = 0; c < width; ++c) got.push_back(got_padded[static_cast<std::size_t>(r) * pitch + c]);
            for (int c = width; c < pitch; ++c)
              if (std::memcmp(&got_padded[static_cast<std::size_t>(r) * pitch + c], &unwritten, sizeof(T)) != 0)
                ADD_FAILURE() << height << "x" << width << " pad " << pad << ": the padding at (" << r << ", " << c
                              << ") was written";
          }
          expect_close(cpu::correlate2d(x, height, width, mask, mh, mw, b), got, mh * mw,
                       "convolve2d " + std::to_string(height) + "x" + std::to_string(width) + " mask " +
                           std::to_string(mh) + "x" + std::to_string(mw) + " " + boundary_name(b) + " pad " +
                           std::to_string(pad));
          if (this->HasFailure()) return;
        }
}

TYPED_TEST(convolution_2d, long_thin_masks_and_images_taller_than_the_grid) {
  using T = TypeParam;
  // 1 x 1801 taps: their tile and halo outgrow a block's shared memory (the direct kernel takes them).
  // 45 x 47 taps, past the staged masks, over more rows than 65535 blocks of 8 rows cover. 3 x 3 (the
  // blocked kernel) and 9 x 9 taps (the tiled one) over more rows than 65535 of their tiles cover.
  struct shape {
    int height, width, mask_height, mask_width;
  };
  for (const shape s : {shape{20, 3000, 1, 1801}, shape{3000, 20, 1801, 1}, shape{524291, 1, 45, 47},
                        shape{2097211, 1, 3, 3}, shape{2097211, 1, 9, 9}}) {
    if (std::int64_t{s.height} * s.width > max_test_size()) continue;
    auto rng = make_rng(static_cast<std::uint64_t>(s.height) * 7 + s.mask_width);
    const auto x = random_reals<T>(static_cast<std::size_t>(s.height) * static_cast<std::size_t>(s.width), rng);
    const auto mask = random_reals<T>(static_cast<std::size_t>(s.mask_height) * static_cast<std::size_t>(s.mask_width), rng);
    const cuda_stream stream;
    const auto d_x = to_device(x, stream);
    device_buffer<T> d_y(x.size(), stream);
    poison(d_y);
    convolve2d(d_x.data(), s.width, d_y.data(), s.width, s.height, s.width, mask.data(), s.mask_height, s.mask_width,
               boundary::clamp, stream.get());
    expect_close(cpu::correlate2d(x, s.height, s.width, mask, s.mask_height, s.mask_width, boundary::clamp), to_host(d_y),
                 s.mask_height * s.mask_width,
                 "convolve2d " + std::to_string(s.height) + "x" + std::to_string(s.width) + " mask " +
                     std::to_string(s.mask_height) + "x" + std::to_string(s.mask_width));
    if (this->HasFailure()) return;
  }
}

template <class T>
class convolution_ladder : public gpu_test {};
TYPED_TEST_SUITE(convolution_ladder, real_types);

TYPED_TEST(convolution_ladder, every_1d_rung_matches_the_reference) {
  using T = TypeParam;
  using ladder::convolution1d_variant;
  for (const int rung : {1, 2, 3, 4, 5})
    for (const int width : {1, 3, 9, 31, 255})
      for (const std::int64_t n : sizes_around(ladder::detail::block_threads)) {
        if (n > (std::int64_t{1} << 20) + 7) continue;
        auto rng = make_rng(static_cast<std::uint64_t>(n) * 13 + width * 5 + rung);
        const auto x = random_reals<T>(static_cast<std::size_t>(n), rng);
        const auto mask = random_reals<T>(static_cast<std::size_t>(width), rng);
        const cuda_stream stream;
        const auto d_x = to_device(x, stream);
        const auto d_mask = to_device(mask, stream);
        device_buffer<T> d_y(x.size(), stream);
        poison(d_y);
        ladder::convolve1d(static_cast<convolution1d_variant>(rung), d_x.data(), d_y.data(), n, mask.data(),
                           d_mask.data(), width, stream.get());
        expect_close(cpu::correlate1d(x, mask, width / 2, boundary::zero), to_host(d_y), width,
                     "1D rung " + std::to_string(rung) + " n=" + std::to_string(n) + " width=" + std::to_string(width));
        if (this->HasFailure()) return;
      }
}

TYPED_TEST(convolution_ladder, every_2d_rung_matches_the_reference) {
  using T = TypeParam;
  using ladder::convolution2d_variant;
  // Sides a tile less one, a tile and two tiles (the tiled rung's 16).
  const std::pair<int, int> images[] = {{1, 1}, {15, 16}, {16, 15}, {32, 17}, {17, 33}, {100, 70}, {257, 129}};
  for (const int rung : {1, 2, 3})
    for (const int side : {1, 3, 5, 15})
      for (const auto& [height, width] : images) {
        auto rng = make_rng(static_cast<std::uint64_t>(height) * 100 + width + side * 7 + rung);
        const auto x = random_reals<T>(static_cast<std::size_t>(height) * static_cast<std::size_t>(width), rng);
        const auto mask = random_reals<T>(static_cast<std::size_t>(side * side), rng);
        const cuda_stream stream;
        const auto d_x = to_device(x, stream);
        const auto d_mask = to_device(mask, stream);
        device_buffer<T> d_y(x.size(), stream);
        poison(d_y);
        ladder::convolve2d(static_cast<convolution2d_variant>(rung), d_x.data(), d_y.data(), height, width,
                           mask.data(), d_mask.data(), side, stream.get());
        expect_close(cpu::correlate2d(x, height, width, mask, side, side, boundary::zero), to_host(d_y), side * side,
                     "2D rung " + std::to_string(rung) + " " + std::to_string(height) + "x" + std::to_string(width) +
                         " side " + std::to_string(side));
        if (this->HasFailure()) return;
      }
}

// More than 65535 row tiles of 16: the grid's y extent stops there, and the rungs stride past it.
TYPED_TEST(convolution_ladder, large_2d_rungs_stride_past_65535_row_tiles) {
  using T = TypeParam;
  const int height = 65535 * ladder::conv2d_output_tile + 37;
  const int width = 3;
  auto rng = make_rng(91);
  const auto x = random_reals<T>(static_cast<std::size_t>(height) * width, rng);
  const auto mask = random_reals<T>(9, rng);
  const auto expected = cpu::correlate2d(x, height, width, mask, 3, 3, boundary::zero);
  const cuda_stream stream;
  const auto d_x = to_device(x, stream);
  const auto d_mask = to_device(mask, stream);
  for (const int rung : {1, 2}) {
    device_buffer<T> d_y(x.size(), stream);
    poison(d_y);
    ladder::convolve2d(static_cast<ladder::convolution2d_variant>(rung), d_x.data(), d_y.data(), height, width,
                       mask.data(), d_mask.data(), 3, stream.get());
    expect_close(expected, to_host(d_y), 9, "2D rung " + std::to_string(rung) + " " + std::to_string(height) + " rows");
  }
}

// No gpu_test fixture: the arguments are checked before any CUDA call, so these run without a GPU too.
// The arrays are real (never read or written: the calls refuse first) except where a null one is the
// point, so that each refusal is for the reason checked.
TEST(convolution_arguments, bad_masks_and_sizes_are_refused) {
  float somewhere[16] = {};
  const float taps[4] = {1, 2, 3, 4};
  expect_refused("odd number of taps", [&] { convolve1d<float>(somewhere, somewhere, 10, taps, 4, boundary::zero); });
  expect_refused("odd number of taps, not 0",
                 [&] { convolve1d<float>(somewhere, somewhere, 10, taps, 0, boundary::zero); });
  expect_refused("at least one tap", [&] { fir_filter<float>(somewhere, somewhere, 10, taps, 0); });
  expect_refused("odd sides", [&] { convolve2d<float>(somewhere, 4, somewhere, 4, 4, 4, taps, 2, 2, boundary::zero); });
  expect_refused("row pitch", [&] { convolve2d<float>(somewhere, 3, somewhere, 4, 4, 4, taps, 1, 1, boundary::zero); });
  // Tap counts and sides whose index arithmetic would pass an int.
  expect_refused("too large", [&] { convolve2d<float>(somewhere, 4, somewhere, 4, 4, 4, taps, 3, 715827883, boundary::zero); });
  expect_refused("image sides from 0 to", [&] {
    convolve2d<float>(somewhere, std::numeric_limits<int>::max(), somewhere, std::numeric_limits<int>::max(), 1,
                      std::numeric_limits<int>::max(), taps, 1, 1, boundary::zero);
  });
}

TEST(convolution_arguments, null_arrays_are_refused) {
  float somewhere[16] = {};  // never read or written: the calls refuse first
  const float taps[3] = {1, 2, 1};
  expect_refused("d_in", [&] { convolve1d<float>(nullptr, somewhere, 10, taps, 3, boundary::zero); });
  expect_refused("d_out", [&] { convolve1d<float>(somewhere, nullptr, 10, taps, 3, boundary::zero); });
  expect_refused("h_mask", [&] { convolve1d<float>(somewhere, somewhere, 10, nullptr, 3, boundary::zero); });
  expect_refused("h_taps", [&] { fir_filter<float>(somewhere, somewhere, 10, nullptr, 3); });
  // Nothing to filter: nothing is read, and nothing launched.
  fir_filter<float>(nullptr, nullptr, 0, nullptr, 3);
  expect_refused("d_in", [&] { convolve2d<float>(nullptr, 4, somewhere, 4, 4, 4, taps, 1, 3, boundary::zero); });
  expect_refused("d_out", [&] { convolve2d<float>(somewhere, 4, nullptr, 4, 4, 4, taps, 1, 3, boundary::zero); });
  expect_refused("h_mask", [&] { convolve2d<float>(somewhere, 4, somewhere, 4, 4, 4, nullptr, 1, 3, boundary::zero); });
}

class convolution_api : public gpu_test {};

TEST_F(convolution_api, null_arrays_with_no_items_are_accepted) {
  const cuda_stream stream;
  const float taps[3] = {1, 2, 1};
  convolve1d<float>(nullptr, nullptr, 0, taps, 3, boundary::zero, stream.get());
  convolve2d<float>(nullptr, 4, nullptr, 4, 0, 4, taps, 1, 3, boundary::zero, stream.get());
  convolve2d<float>(nullptr, 0, nullptr, 0, 4, 0, taps, 1, 3, boundary::zero, stream.get());
  fir_filter<float>(nullptr, nullptr, 0, taps, 3, stream.get());
  LOOKBACK_CUDA_TRY(cudaStreamSynchronize(stream.get()));
}

class convolution_large : public gpu_test {};

// 2^28 items, 9 taps from the constant bank, the mirror at both ends.
TEST_F(convolution_large, convolve1d_at_2_pow_28) {
  const std::int64_t n = std::int64_t{1} << 28;
  if (n > max_test_size()) GTEST_SKIP() << "above LOOKBACK_TEST_MAX_N";
  check_1d<float>(n, 9, boundary::mirror, 28);
}

// Past 2^31 items (64-bit sizes and tile offsets, the mirror reaching back from the far end): every
// output against a double-precision sum; run in the bundle's huge step.
TEST_F(convolution_large, DISABLED_convolve1d_past_2_pow_31_items) {
  const std::int64_t n = (std::int64_t{1} << 31) + 4099;
  constexpr int width = 5;
  auto rng = make_rng(37);
  const auto x = quick_random_values<float>(n, rng, [](std::uint32_t word) {
    return static_cast<float>(word >> 8) * (1.0f / 8388608.0f) - 1.0f;  // [-1, 1)
  });
  const auto mask = random_reals<float>(width, rng);
  const cuda_stream stream;
  const auto d_x = to_device(x, stream);
  device_buffer<float> d_y(x.size(), stream);
  poison(d_y);
  convolve1d(d_x.data(), d_y.data(), n, mask.data(), width, boundary::mirror, stream.get());
  const std::vector<float> y = to_host(d_y);
  const double tolerance = 2.0 * std::numeric_limits<float>::epsilon() * width;
  // The mirror written out here rather than taken from the library, whose index arithmetic is under
  // test: within half a mask of the ends, -1 stands for 1 and n for n - 2.
  const auto mirrored = [n](std::int64_t k) { return k < 0 ? -k : k >= n ? 2 * (n - 1) - k : k; };
  for (std::int64_t i = 0; i < n; ++i) {
    double want = 0;
    for (int j = 0; j < width; ++j)
      want += static_cast<double>(mask[static_cast<std::size_t>(j)]) *
              x[static_cast<std::size_t>(mirrored(i - width / 2 + j))];
    ASSERT_NEAR(y[static_cast<std::size_t>(i)], want, tolerance) << "element " << i;
  }
  std::cout << "convolve1d of " << n << " floats, mirror boundary: every element checked\n";
}

}  // namespace
}  // namespace lookback::test
