// The summed-area table of a float image beside a device memcpy of the image (issue 18's bar: at most
// 1.3x the memcpy's time, so 77% in the table's "% memcpy" column). The sat_tune rows time other tile
// shapes for policy::summed_area; run them with --benchmark_filter=sat_tune.
#include "support/bench_support.cuh"
#include "typed/compare.hpp"
#include "typed/stream_verify.hpp"

#include <lookback/algorithms/cpu/summed_area_table.hpp>
#include <lookback/algorithms/summed_area_table.cuh>

#include <cmath>
#include <string>
#include <vector>

namespace lookback::bench {
namespace {

/// The timed table against the CPU's in long double, every entry within a float sum's allowance (as
/// `sat --verify` checks it).
std::string differs_from_cpu(const float* d_in, const float* d_table, int side) {
  const std::int64_t n = std::int64_t{side} * side;
  const auto in_bytes = typed::detail::fetch(d_in, n, sizeof(float), stream());
  const auto table_bytes = typed::detail::fetch(d_table, n, sizeof(float), stream());
  const auto* in = reinterpret_cast<const float*>(in_bytes.data());
  const auto* table = reinterpret_cast<const float*>(table_bytes.data());
  const std::vector<long double> want = cpu::summed_area_table<long double>(in, side, side);
  std::vector<double> magnitude(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < magnitude.size(); ++i) magnitude[i] = std::abs(static_cast<double>(in[i]));
  const std::vector<double> mass = cpu::summed_area_table<double>(magnitude.data(), side, side);
  for (std::size_t i = 0; i < want.size(); ++i) {
    const std::int64_t r = static_cast<std::int64_t>(i) / side, c = static_cast<std::int64_t>(i) % side;
    const double tolerance = typed::sum_tolerance<float>(mass[i], (r + 1) * (c + 1));
    if (!typed::values_match<float>(static_cast<double>(want[i]), table[i], tolerance))
      return "entry (" + std::to_string(r) + ", " + std::to_string(c) + "): " + typed::format_value(static_cast<double>(want[i])) +
             " against " + typed::format_value(table[i]);
  }
  return {};
}

template <class Policy>
void register_table(const char* op, const char* label, int side) {
  const std::int64_t n = std::int64_t{side} * side;
  register_gpu_benchmark(bench_name(op, label, io::dtype::float32, n), [=](benchmark::State& state) {
    const auto* d_in = static_cast<const float*>(random_input(io::dtype::float32, n));
    auto* d_table = static_cast<float*>(scratch(static_cast<std::size_t>(n) * sizeof(float), 0));
    const auto run = [&](void* d_temp, std::size_t& temp_bytes) {
      summed_area::detail::table_with_policy<Policy>(d_temp, temp_bytes, d_in, side, d_table, side, side, side,
                                                     stream());
    };
    std::size_t temp_bytes = 0;
    run(nullptr, temp_bytes);
    void* d_temp = scratch(temp_bytes, 1);
    time_gpu(state, 2.0 * static_cast<double>(n) * sizeof(float), n, [&] { run(d_temp, temp_bytes); });
    fail_on_difference(state, [&] { return differs_from_cpu(d_in, d_table, side); }, "the CPU's");
  });
}

const bool registered = [] {
  for (const int side : {2048, 8192}) {
    register_table<policy::summed_area<float>>("summed_area_table", "lookback", side);
    register_memcpy("summed_area_table", io::dtype::float32, std::int64_t{side} * side);
  }
  using policy::summed_area_config;
  for (const int side : {2048, 4096, 8192}) {
    register_table<policy::summed_area<float>>("sat_tune", "default", side);
    register_table<summed_area_config<8, 8, 4, 4, 200>>("sat_tune", "64x128_delay200", side);
    register_table<summed_area_config<8, 8, 4, 4, 500>>("sat_tune", "64x128_delay500", side);
    register_table<summed_area_config<8, 8, 4, 3, 0>>("sat_tune", "64x128_3blocks", side);
    register_table<summed_area_config<8, 8, 4, 4, 0, 2>>("sat_tune", "64x128_window2", side);
    register_table<summed_area_config<8, 4, 4, 4, 0>>("sat_tune", "32x128", side);
    register_table<summed_area_config<8, 4, 8, 3, 0>>("sat_tune", "32x256", side);
    register_table<summed_area_config<8, 8, 8, 2, 0>>("sat_tune", "64x256", side);
    register_table<summed_area_config<8, 16, 4, 2, 0>>("sat_tune", "128x128", side);
    register_table<summed_area_config<4, 8, 4, 6, 0>>("sat_tune", "32x128_4warps", side);
    register_memcpy("sat_tune", io::dtype::float32, std::int64_t{side} * side);
  }
  return true;
}();

}  // namespace
}  // namespace lookback::bench
