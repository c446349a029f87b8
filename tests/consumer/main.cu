// Scans 1..n with the installed headers, in core and streamed from host memory in chunks, and sorts
// n..1 externally under a small device budget, with lookback::distributed's engines linked; exits 69 (EX_UNAVAILABLE, which CTest counts as
// skipped) without a GPU, 1 on a wrong result.
#include <lookback/pipelines/scan.cuh>
#include <lookback/pipelines/sort.cuh>
#include <lookback/primitives/device_buffer.cuh>
#include <lookback/primitives/scan.cuh>
#if LOOKBACK_HAVE_MPI
#include <lookback/distributed/mpi_communicator.hpp>
#endif
#if LOOKBACK_HAVE_NCCL
#include <lookback/distributed/nccl_communicator.hpp>
#endif

#include <cstdio>
#include <numeric>
#include <vector>

int main() {
  // The engines lookback::distributed brought in, linked and callable without a GPU.
#if LOOKBACK_HAVE_MPI
  int mpi_up = 0;
  if (MPI_Initialized(&mpi_up) != MPI_SUCCESS) return 1;
#endif
#if LOOKBACK_HAVE_NCCL
  int nccl_version = 0;
  if (ncclGetVersion(&nccl_version) != ncclSuccess || nccl_version <= 0) return 1;
#endif
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::puts("consumer: no GPU to run it on");
    return 69;
  }
  std::vector<long long> host(100000);
  std::iota(host.begin(), host.end(), 1);
  auto d = lookback::to_device(host, nullptr);
  lookback::inclusive_scan(d.data(), d.data(), lookback::sum{}, static_cast<std::int64_t>(host.size()));
  const auto out = lookback::to_host(d);
  const long long n = static_cast<long long>(host.size());
  bool ok = out.back() == n * (n + 1) / 2;

  // The same scan from host memory to host memory in chunks of 10000 items.
  std::vector<long long> streamed(host.size());
  lookback::pipelines::host_source in(host.data(), n, sizeof(long long));
  lookback::pipelines::host_sink sink(streamed.data(), sizeof(long long));
  lookback::pipelines::stream_options options;
  options.plan.max_chunk_items = 10000;
  const auto plan = lookback::pipelines::inclusive_scan<long long>(in, sink, lookback::sum{}, options);
  ok = ok && plan.chunks == 10 && streamed == out;

  // n..1 sorted back to 1..n in buckets, the device budget far below the keys.
  std::vector<long long> reversed(host.rbegin(), host.rend()), sorted(host.size());
  lookback::pipelines::host_source keys(reversed.data(), n, sizeof(long long));
  lookback::pipelines::host_sink keys_out(sorted.data(), sizeof(long long));
  lookback::pipelines::sort_options sort_options;
  sort_options.limits.device_bytes = 1 << 20;
  const auto report = lookback::pipelines::sort_keys<long long>(keys, keys_out, sort_options);
  ok = ok && report.external && sorted == host;
  std::printf("consumer scan %s\n", ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
