// Scans 1..n with the installed headers; exits 0 without a GPU (nothing to run), 1 on a wrong result.
#include <lookback/primitives/device_buffer.cuh>
#include <lookback/primitives/scan.cuh>

#include <cstdio>
#include <numeric>
#include <vector>

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::puts("consumer built; no GPU to run it on");
    return 0;
  }
  std::vector<long long> host(100000);
  std::iota(host.begin(), host.end(), 1);
  auto d = lookback::to_device(host, nullptr);
  lookback::inclusive_scan(d.data(), d.data(), lookback::sum{}, static_cast<std::int64_t>(host.size()));
  const auto out = lookback::to_host(d);
  const long long n = static_cast<long long>(host.size());
  const bool ok = out.back() == n * (n + 1) / 2;
  std::printf("consumer scan %s\n", ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
