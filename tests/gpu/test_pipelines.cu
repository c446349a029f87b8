// Pipelines: every device API captured in one CUDA graph and replayed on new data in place (no host
// sync, no allocation outside the stream-ordered allocator), and different primitives running at
// once on two streams (no shared global scratch).
#include "support/gpu_test.hpp"
#include "support/test_sizes.hpp"

#include <lookback/algorithms/histogram.cuh>
#include <lookback/algorithms/radix_sort.cuh>
#include <lookback/algorithms/select.cuh>
#include <lookback/primitives/device_buffer.cuh>
#include <lookback/primitives/reduce.cuh>
#include <lookback/primitives/scan.cuh>
#include <lookback/primitives/stream.cuh>

#include <algorithm>
#include <numeric>
#include <vector>

namespace lookback::test {
namespace {

struct below_500 {
  __host__ __device__ bool operator()(std::uint32_t x) const { return x < 500; }
};

std::vector<std::uint32_t> fresh_values(std::int64_t n, std::mt19937_64& rng) {
  std::vector<std::uint32_t> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = static_cast<std::uint32_t>(rng() % 1000);
  return v;
}

/// The device outputs of one pipeline run, and their checks against the CPU.
struct pipeline {
  std::int64_t n;
  cudaStream_t stream;
  device_buffer<std::uint32_t> d_in{static_cast<std::size_t>(n), stream};
  device_buffer<std::uint32_t> d_sum{1, stream};
  device_buffer<std::uint32_t> d_scan{static_cast<std::size_t>(n), stream};
  device_buffer<unsigned> d_hist{256, stream};
  device_buffer<std::uint32_t> d_kept{static_cast<std::size_t>(n), stream};
  device_buffer<std::int64_t> d_count{1, stream};
  device_buffer<std::uint32_t> d_sorted{static_cast<std::size_t>(n), stream};
  device_buffer<std::byte> d_sort_temp{sort_temp_bytes(n), stream};

  static std::size_t sort_temp_bytes(std::int64_t n) {
    std::size_t bytes = 0;
    radix_sort_keys<std::uint32_t>(nullptr, bytes, nullptr, nullptr, n);
    return bytes;
  }

  /// Enqueues everything on `stream`; nothing here waits for the device or allocates outside it.
  void enqueue() {
    reduce(d_in.data(), d_sum.data(), n, sum{}, std::uint32_t{0}, stream);
    exclusive_scan(d_in.data(), d_scan.data(), std::uint32_t{0}, sum{}, n, stream);
    histogram_even(d_in.data(), n, d_hist.data(), 256, std::int64_t{0}, std::int64_t{1000}, stream);
    select_if(d_in.data(), d_kept.data(), d_count.data(), n, below_500{}, stream);
    std::size_t bytes = d_sort_temp.size();
    radix_sort_keys(d_sort_temp.data(), bytes, d_in.data(), d_sorted.data(), n, 0, 32, stream);
  }

  void poison() {
    for (auto* bytes : {static_cast<void*>(d_scan.data()), static_cast<void*>(d_kept.data()),
                        static_cast<void*>(d_sorted.data())})
      LOOKBACK_CUDA_TRY(cudaMemsetAsync(bytes, poison_byte, static_cast<std::size_t>(n) * 4, stream));
    d_sum.fill_bytes(poison_byte);
    d_hist.fill_bytes(poison_byte);
    d_count.fill_bytes(poison_byte);
  }

  void expect_results(const std::vector<std::uint32_t>& in, const std::string& what) {
    const auto sum_got = to_host(d_sum);
    const auto scan_got = to_host(d_scan);
    const auto hist_got = to_host(d_hist);
    const auto kept_got = to_host(d_kept);
    const auto count_got = to_host(d_count);
    const auto sorted_got = to_host(d_sorted);
    EXPECT_EQ(sum_got[0], std::accumulate(in.begin(), in.end(), std::uint32_t{0})) << what << ": reduce (wrapping)";
    std::vector<std::uint32_t> scan(in.size());
    std::exclusive_scan(in.begin(), in.end(), scan.begin(), 0u);
    EXPECT_TRUE(scan == scan_got) << what << ": scan";
    std::vector<unsigned> hist(256);
    for (const auto x : in) ++hist[x * 256 / 1000];
    EXPECT_TRUE(hist == hist_got) << what << ": histogram";
    std::vector<std::uint32_t> kept;
    std::copy_if(in.begin(), in.end(), std::back_inserter(kept), below_500{});
    ASSERT_EQ(count_got[0], static_cast<std::int64_t>(kept.size())) << what << ": compaction count";
    // Past the kept items the poison stays.
    kept.resize(in.size(), poisoned_element<std::uint32_t>());
    EXPECT_TRUE(kept == kept_got) << what << ": compaction";
    auto sorted = in;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_TRUE(sorted == sorted_got) << what << ": sort";
  }
};

class pipelines : public gpu_test {};

TEST_F(pipelines, one_graph_replays_every_primitive_on_new_data) {
  const std::int64_t n = std::min<std::int64_t>(max_test_size(), (std::int64_t{1} << 20) + 3);
  const cuda_stream stream;
  pipeline p{n, stream.get()};
  auto rng = make_rng(7);
  // One run outside the graph first: the first call of each kernel queries the device (occupancy,
  // shared-memory limits) and caches the answer.
  auto in = fresh_values(n, rng);
  copy_to_device(p.d_in.data(), in.data(), in.size(), stream.get());
  p.enqueue();
  LOOKBACK_CUDA_TRY(cudaStreamSynchronize(stream.get()));

  cudaGraph_t graph = nullptr;
  LOOKBACK_CUDA_TRY(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeGlobal));
  p.enqueue();
  LOOKBACK_CUDA_TRY(cudaStreamEndCapture(stream.get(), &graph));
  cudaGraphExec_t exec = nullptr;
  LOOKBACK_CUDA_TRY(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 4; ++replay) {
    in = fresh_values(n, rng);
    copy_to_device(p.d_in.data(), in.data(), in.size(), stream.get());
    p.poison();
    LOOKBACK_CUDA_TRY(cudaGraphLaunch(exec, stream.get()));
    LOOKBACK_CUDA_TRY(cudaStreamSynchronize(stream.get()));
    p.expect_results(in, "replay " + std::to_string(replay));
    if (HasFailure()) break;
  }
  LOOKBACK_CUDA_TRY(cudaGraphExecDestroy(exec));
  LOOKBACK_CUDA_TRY(cudaGraphDestroy(graph));
}

TEST_F(pipelines, two_streams_at_once_keep_their_own_scratch) {
  const std::int64_t n = std::min<std::int64_t>(max_test_size(), (std::int64_t{1} << 22) + 9);
  const cuda_stream first;
  const cuda_stream second;
  pipeline a{n, first.get()};
  pipeline b{n, second.get()};
  auto rng = make_rng(8);
  for (int round = 0; round < 3; ++round) {
    const auto in_a = fresh_values(n, rng);
    const auto in_b = fresh_values(n, rng);
    copy_to_device(a.d_in.data(), in_a.data(), in_a.size(), first.get());
    copy_to_device(b.d_in.data(), in_b.data(), in_b.size(), second.get());
    LOOKBACK_CUDA_TRY(cudaStreamSynchronize(first.get()));
    LOOKBACK_CUDA_TRY(cudaStreamSynchronize(second.get()));
    a.poison();
    b.poison();
    // Enqueued back to back, so the two pipelines' kernels overlap on the device.
    a.enqueue();
    b.enqueue();
    LOOKBACK_CUDA_TRY(cudaStreamSynchronize(first.get()));
    LOOKBACK_CUDA_TRY(cudaStreamSynchronize(second.get()));
    a.expect_results(in_a, "stream 1, round " + std::to_string(round));
    b.expect_results(in_b, "stream 2, round " + std::to_string(round));
    if (HasFailure()) break;
  }
}

}  // namespace
}  // namespace lookback::test
