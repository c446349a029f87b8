// Scan policies side by side (tile shape, tile I/O, look-back back-off, descriptor kind), for
// choosing policy::scan. Not part of the main table; run with --benchmark_filter=scan_tune.
#include "support/bench_support.cuh"

#include <lookback/primitives/scan.cuh>

namespace lookback::bench {
namespace {

using policy::scan_config;
using policy::tile_io;
using tile::descriptor;

template <class T, class Policy>
void register_policy(const char* label) {
  const std::int64_t n = std::int64_t{1} << 28;
  const io::dtype type = io::dtype_of<T>();
  register_gpu_benchmark(bench_name("scan_tune", label, type, n), [=](benchmark::State& state) {
    const T* d_in = static_cast<const T*>(random_input(type, n));
    T* d_out = static_cast<T*>(scratch(static_cast<std::size_t>(n) * sizeof(T), 0));
    std::size_t temp_bytes = 0;
    lookback::detail::scan_with_policy<Policy, true>(nullptr, temp_bytes, d_in, d_out, T(0), sum{}, n, stream());
    void* d_temp = scratch(temp_bytes, 2);
    time_gpu(state, 2.0 * static_cast<double>(n) * sizeof(T), n, [&] {
      lookback::detail::scan_with_policy<Policy, true>(d_temp, temp_bytes, d_in, d_out, T(0), sum{}, n, stream());
    });
  });
}

const bool registered = [] {
  using u32 = std::uint32_t;
  using u64 = std::uint64_t;
  register_policy<u32, scan_config<256, 16>>("256x16");
  register_policy<u32, scan_config<256, 24>>("256x24");
  register_policy<u32, scan_config<128, 16>>("128x16");
  register_policy<u32, scan_config<128, 24>>("128x24");
  register_policy<u32, scan_config<512, 16>>("512x16");
  register_policy<u32, scan_config<256, 16, tile_io::warp_transpose, 64>>("256x16_spin64");
  register_policy<u32, scan_config<256, 16, tile_io::blocked_vectors>>("256x16_vec");
  register_policy<u32, scan_config<256, 32, tile_io::blocked_vectors>>("256x32_vec");
  register_policy<u32, scan_config<128, 32, tile_io::blocked_vectors>>("128x32_vec");
  register_policy<u64, scan_config<256, 8, tile_io::warp_transpose, 0, descriptor::fenced>>("256x8_fenced");
  register_policy<u64, scan_config<256, 8, tile_io::warp_transpose, 0, descriptor::packed128>>("256x8");
  register_policy<u64, scan_config<256, 12, tile_io::warp_transpose, 0, descriptor::packed128>>("256x12");
  register_policy<u64, scan_config<128, 16, tile_io::warp_transpose, 0, descriptor::packed128>>("128x16");
  register_policy<u64, scan_config<256, 8, tile_io::blocked_vectors, 0, descriptor::packed128>>("256x8_vec");
  register_policy<u64, scan_config<256, 16, tile_io::blocked_vectors, 0, descriptor::packed128>>("256x16_vec");
  register_policy<u64, scan_config<256, 8, tile_io::warp_transpose, 64, descriptor::packed128>>("256x8_spin64");
  return true;
}();

}  // namespace
}  // namespace lookback::bench
