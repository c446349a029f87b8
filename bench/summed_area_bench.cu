// The summed-area table of a float image beside a device memcpy of the image (the issue's bar: at most
// 2.5x the memcpy's time, so 40% in the table's "% memcpy" column; the table reads and writes the
// image twice, rows then columns).
#include "support/bench_support.cuh"

#include <lookback/algorithms/summed_area_table.cuh>

namespace lookback::bench {
namespace {

void register_table(int side) {
  const std::int64_t n = std::int64_t{side} * side;
  register_gpu_benchmark(bench_name("summed_area_table", "lookback", io::dtype::float32, n), [=](benchmark::State& state) {
    const auto* d_in = static_cast<const float*>(random_input(io::dtype::float32, n));
    auto* d_table = static_cast<float*>(scratch(static_cast<std::size_t>(n) * sizeof(float), 0));
    time_gpu(state, 2.0 * static_cast<double>(n) * sizeof(float), n,
             [&] { summed_area_table(d_in, side, d_table, side, side, side, stream()); });
  });
  register_memcpy("summed_area_table", io::dtype::float32, n);
}

const bool registered = [] {
  register_table(2048);
  register_table(8192);
  return true;
}();

}  // namespace
}  // namespace lookback::bench
