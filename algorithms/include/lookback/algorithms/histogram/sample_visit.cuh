#pragma once
// The histogram kernels' walk over the samples: whole warps in step (so warp votes are always full and
// per-warp bookkeeping stays uniform), grid-strided, with 16-byte vector loads when the input allows.
#include <lookback/primitives/thread/vector16.cuh>
#include <lookback/primitives/warp/shuffle.cuh>

#include <cstdint>

namespace lookback::histogram::device {

/// Visits every sample once: visit(sample, valid) for each, and end_of_trip(samples_per_lane) after
/// each trip of the warp. A lane takes `vectors_in_flight` 16-byte vectors per trip, then the scalar
/// tail one sample per trip.
template <class Policy, class Sample, class Visit, class EndOfTrip>
__device__ __forceinline__ void for_each_sample(const Sample* d_samples, std::int64_t n, bool aligned, Visit visit,
                                                EndOfTrip end_of_trip) {
  constexpr int unroll = Policy::vectors_in_flight;
  using vec = thread::vector16<Sample>;
  const int lane = warp::lane_id();
  const std::int64_t warps_in_grid = std::int64_t{gridDim.x} * (Policy::threads / warp::warp_size);
  const std::int64_t warp_index = std::int64_t{blockIdx.x} * (Policy::threads / warp::warp_size) + threadIdx.x / warp::warp_size;

  std::int64_t scalar_begin = 0;
  if (aligned) {
    const auto* d_vec = reinterpret_cast<const vec*>(d_samples);
    const std::int64_t vectors = n / vec::size;
    const std::int64_t per_trip = std::int64_t{warp::warp_size} * unroll;
    for (std::int64_t base = warp_index * per_trip; base < vectors; base += warps_in_grid * per_trip) {
      vec v[unroll];
#pragma unroll
      for (int u = 0; u < unroll; ++u) {
        const std::int64_t i = base + u * warp::warp_size + lane;
        if (i < vectors) v[u] = d_vec[i];
      }
#pragma unroll
      for (int u = 0; u < unroll; ++u) {
        const bool valid = base + u * warp::warp_size + lane < vectors;
#pragma unroll
        for (int e = 0; e < vec::size; ++e) visit(v[u].items[e], valid);
      }
      end_of_trip(unroll * vec::size);
    }
    scalar_begin = vectors * vec::size;
  }
  for (std::int64_t base = scalar_begin + warp_index * warp::warp_size; base < n;
       base += warps_in_grid * warp::warp_size) {
    const std::int64_t i = base + lane;
    const bool valid = i < n;
    visit(valid ? d_samples[i] : Sample{}, valid);
    end_of_trip(1);
  }
}

/// for_each_sample without per-trip bookkeeping.
template <class Policy, class Sample, class Visit>
__device__ __forceinline__ void for_each_sample(const Sample* d_samples, std::int64_t n, bool aligned, Visit visit) {
  for_each_sample<Policy>(d_samples, n, aligned, visit, [](int) {});
}

}  // namespace lookback::histogram::device
