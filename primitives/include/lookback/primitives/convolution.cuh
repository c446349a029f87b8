#pragma once
// 1D and 2D convolution in the textbook's correlation form, and the causal FIR filter:
//   convolve1d:  y[i] = sum_{j < w} x[i - w/2 + j] * m[j]               (w odd)
//   fir_filter:  y[n] = sum_{k < K} h[k] * x[n - k], zero initial state  (scipy.signal.lfilter(h, 1, x))
//   convolve2d:  y(r, c) = sum_{a, b} x(r - mh/2 + a, c - mw/2 + b) * m[a * mw + b]   (mh, mw odd)
// float or double; what lies past the input's ends follows a boundary policy (convolution/boundary.cuh).
// Masks come from host memory and travel with the launch (convolution/mask.cuh): nothing global is
// shared between calls, and nothing here synchronises the host. Masks past the largest tier (policy/
// convolution_policy.cuh) are the exception: copied to device memory from a pageable snapshot, which
// the driver may stage by waiting for the stream, and which a graph capture does not accept.
#include <lookback/primitives/convolution/boundary.cuh>
#include <lookback/primitives/convolution/image_side.hpp>
#include <lookback/primitives/convolution/mask.cuh>
#include <lookback/primitives/detail/device_limits.cuh>
#include <lookback/primitives/detail/temp_layout.cuh>
#include <lookback/primitives/device/blocked_convolution2d_kernel.cuh>
#include <lookback/primitives/device/convolution_kernels.cuh>
#include <lookback/primitives/device_buffer.cuh>
#include <lookback/primitives/error.cuh>
#include <lookback/primitives/policy/convolution_policy.cuh>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace lookback {
namespace convolution::detail {

template <class T>
void check_type() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "convolution takes float or double");
}

inline void check_mask(int count, const char* who) {
  if (count < 1) throw std::invalid_argument(std::string(who) + ": the mask needs at least one tap");
}

/// Runs `launch(mask)` with the mask as a kernel parameter of the smallest tier that holds it, or from
/// device memory past the largest tier.
template <class T, int SmallTaps, int LargeTaps, class Launch>
void with_mask(const T* h_mask, int count, cudaStream_t stream, Launch&& launch) {
  if (count <= SmallTaps) return launch(mask_taps<T, SmallTaps>::from(h_mask, count), true);
  if (count <= LargeTaps) return launch(mask_taps<T, LargeTaps>::from(h_mask, count), true);
  // Copied from a pageable snapshot: cudaMemcpyAsync returns once pageable bytes are staged, so the
  // caller may change or free its mask on return, as with the staged tiers, even if it is pinned.
  const std::vector<T> snapshot(h_mask, h_mask + count);
  device_buffer<T> d_mask(static_cast<std::size_t>(count), stream);
  copy_to_device(d_mask.data(), snapshot.data(), snapshot.size(), stream);
  launch(global_taps<T>{d_mask.data()}, false);
}

/// The general 1D form y[i] = sum_{j < width} x[i - left + j] * mask[j].
template <class Policy, class T>
void correlate1d(const T* d_in, T* d_out, std::int64_t n, const T* h_mask, int width, int left, boundary b,
                 cudaStream_t stream) {
  check_type<T>();
  lookback::detail::check_item_count(n, "lookback::convolve1d");
  check_mask(width, "lookback::convolve1d");
  lookback::detail::check_array(d_in, n, "lookback::convolve1d", "d_in");
  lookback::detail::check_array(d_out, n, "lookback::convolve1d", "d_out");
  lookback::detail::check_array(h_mask, n > 0 ? width : 0, "lookback::convolve1d", "h_mask");
  if (n == 0) return;
  with_mask<T, Policy::small_taps, Policy::large_taps>(h_mask, width, stream, [&](auto mask, bool staged) {
    using mask_t = decltype(mask);
    if (staged) {
      const auto kernel = device::tiled_convolution1d_kernel<Policy, T, mask_t>;
      const int shared = (Policy::tile_outputs + width - 1) * static_cast<int>(sizeof(T));
      lookback::detail::allow_dynamic_shared_memory(kernel, shared);
      const std::int64_t tiles = (n + Policy::tile_outputs - 1) / Policy::tile_outputs;
      kernel<<<static_cast<unsigned>(tiles), Policy::threads, shared, stream>>>(d_in, d_out, n, mask, width, left, b);
    } else {
      const auto kernel = device::direct_convolution1d_kernel<T, mask_t>;
      const int blocks = static_cast<int>(std::min<std::int64_t>(
          (n + Policy::threads - 1) / Policy::threads, lookback::detail::resident_blocks(kernel, Policy::threads)));
      kernel<<<blocks, Policy::threads, 0, stream>>>(d_in, d_out, n, mask, width, left, b);
    }
    LOOKBACK_CUDA_TRY(cudaGetLastError());
  });
}

/// The square masks with a compile-time kernel (3, 5 and 7 taps a side).
template <class T>
void blocked_convolve2d(const T* d_in, std::int64_t in_pitch, T* d_out, std::int64_t out_pitch, int height, int width,
                        const T* h_mask, int side, boundary b, cudaStream_t stream) {
  using policy = policy::convolution2d_blocked;
  const auto mask = mask_taps<T, policy::small_taps>::from(h_mask, side * side);
  const dim3 grid((width + policy::tile_width - 1) / policy::tile_width,
                  lookback::detail::grid_rows(height, policy::tile_height));
  const dim3 block(policy::block_x, policy::block_y);
  switch (side) {
    case 3:
      device::blocked_convolution2d_kernel<policy, 3, 3><<<grid, block, 0, stream>>>(d_in, in_pitch, d_out, out_pitch,
                                                                                     height, width, mask, b);
      break;
    case 5:
      device::blocked_convolution2d_kernel<policy, 5, 5><<<grid, block, 0, stream>>>(d_in, in_pitch, d_out, out_pitch,
                                                                                     height, width, mask, b);
      break;
    default:
      device::blocked_convolution2d_kernel<policy, 7, 7><<<grid, block, 0, stream>>>(d_in, in_pitch, d_out, out_pitch,
                                                                                     height, width, mask, b);
  }
  LOOKBACK_CUDA_TRY(cudaGetLastError());
}

}  // namespace convolution::detail

/// Centred 1D convolution (correlation form) with an odd number of taps. The output must not overlap
/// the input.
template <class T>
void convolve1d(const T* d_in, T* d_out, std::int64_t n, const T* h_mask, int mask_width, boundary b,
                cudaStream_t stream = nullptr) {
  if (mask_width % 2 == 0)
    throw std::invalid_argument("lookback::convolve1d: the mask needs an odd number of taps, not " +
                                std::to_string(mask_width));
  convolution::detail::correlate1d<policy::convolution1d>(d_in, d_out, n, h_mask, mask_width, mask_width / 2, b,
                                                          stream);
}

/// Causal FIR filter with zero initial state: y[n] = sum_k h[k] * x[n - k], as long as the input.
template <class T>
void fir_filter(const T* d_in, T* d_out, std::int64_t n, const T* h_taps, int num_taps, cudaStream_t stream = nullptr) {
  convolution::detail::check_mask(num_taps, "lookback::fir_filter");
  lookback::detail::check_item_count(n, "lookback::fir_filter");
  if (n == 0) return;
  lookback::detail::check_array(h_taps, num_taps, "lookback::fir_filter", "h_taps");
  // The correlation form with the taps reversed, every window reaching num_taps - 1 samples back.
  std::vector<T> reversed(h_taps, h_taps + num_taps);
  std::reverse(reversed.begin(), reversed.end());
  convolution::detail::correlate1d<policy::convolution1d>(d_in, d_out, n, reversed.data(), num_taps, num_taps - 1,
                                                          boundary::zero, stream);
}

/// Centred 2D convolution of a height x width image (row-major; pitches in elements, at least the
/// width) with an odd mask_height x mask_width mask (row-major, host memory).
template <class T>
void convolve2d(const T* d_in, std::int64_t in_pitch, T* d_out, std::int64_t out_pitch, int height, int width,
                const T* h_mask, int mask_height, int mask_width, boundary b, cudaStream_t stream = nullptr) {
  using policy = policy::convolution2d;
  convolution::detail::check_type<T>();
  // Column and row indices, halos included, stay within an int (the kernels' tiles and grids count in int).
  lookback::detail::check_image_sides(height, width, "lookback::convolve2d");
  if (mask_height % 2 == 0 || mask_width % 2 == 0 || mask_height < 1 || mask_width < 1)
    throw std::invalid_argument("lookback::convolve2d: the mask needs odd sides, not " + std::to_string(mask_height) +
                                " x " + std::to_string(mask_width));
  if (in_pitch < width || out_pitch < width)
    throw std::invalid_argument("lookback::convolve2d: a row pitch is smaller than the width");
  if (mask_height > max_image_side || mask_width > max_image_side ||
      std::int64_t{mask_height} * mask_width > std::numeric_limits<int>::max())
    throw std::invalid_argument("lookback::convolve2d: a mask of " + std::to_string(mask_height) + " x " +
                                std::to_string(mask_width) + " taps is too large");
  if (height == 0 || width == 0) return;
  const std::int64_t pixels = std::int64_t{height} * width;
  lookback::detail::check_array(d_in, pixels, "lookback::convolve2d", "d_in");
  lookback::detail::check_array(d_out, pixels, "lookback::convolve2d", "d_out");
  lookback::detail::check_array(h_mask, mask_height * mask_width, "lookback::convolve2d", "h_mask");
  if (mask_height == mask_width && (mask_width == 3 || mask_width == 5 || mask_width == 7))
    return convolution::detail::blocked_convolve2d(d_in, in_pitch, d_out, out_pitch, height, width, h_mask, mask_width, b,
                                                   stream);
  convolution::detail::with_mask<T, policy::small_taps, policy::large_taps>(
      h_mask, mask_height * mask_width, stream, [&](auto mask, bool staged) {
        using mask_t = decltype(mask);
        const auto tiled = convolution::device::tiled_convolution2d_kernel<policy, T, mask_t>;
        // Staged masks have at most large_taps taps, so the tile and halo's bytes fit an int; a long, thin
        // one's may still outgrow a block's shared memory: the direct kernel then.
        const int shared = staged ? (policy::tile_width + mask_width - 1) * (policy::tile_height + mask_height - 1) *
                                        static_cast<int>(sizeof(T))
                                  : 0;
        if (staged && lookback::detail::fits_dynamic_shared_memory(tiled, shared)) {
          lookback::detail::allow_dynamic_shared_memory(tiled, shared);
          const dim3 grid((width + policy::tile_width - 1) / policy::tile_width,
                          lookback::detail::grid_rows(height, policy::tile_height));
          tiled<<<grid, dim3(policy::block_x, policy::block_y), shared, stream>>>(
              d_in, in_pitch, d_out, out_pitch, height, width, mask, mask_height, mask_width, b);
        } else {
          const auto kernel = convolution::device::direct_convolution2d_kernel<T, mask_t>;
          const dim3 grid((width + 31) / 32, lookback::detail::grid_rows(height, 8));
          kernel<<<grid, dim3(32, 8), 0, stream>>>(d_in, in_pitch, d_out, out_pitch, height, width, mask, mask_height,
                                                  mask_width, b);
        }
        LOOKBACK_CUDA_TRY(cudaGetLastError());
      });
}

}  // namespace lookback
