// Radix sort pass policies side by side (tile shape, histogram trip), for choosing policy::radix_sort
// and its small-size threshold. Not part of the main table; run with --benchmark_filter=sort_tune and
// read beside sort_(keys|pairs)/cub at the same sizes.
#include "support/bench_support.cuh"

#include <lookback/algorithms/radix_sort.cuh>

namespace lookback::bench {
namespace {

using policy::onesweep_config;
using policy::radix_histogram_config;

template <class Histogram, class Pass, class Value, class Key = std::uint32_t>
void register_policy(const char* label, std::initializer_list<int> log_sizes = {16, 17, 18, 19, 20, 22, 24}) {
  constexpr bool pairs = !std::is_same_v<Value, radix::no_value>;
  for (const int log_n : log_sizes) {
    const std::int64_t n = std::int64_t{1} << log_n;
    const std::string op = pairs ? "sort_tune_pairs" : "sort_tune_keys";
    register_gpu_benchmark(bench_name(op.c_str(), label, io::dtype_of<Key>(), n), [=](benchmark::State& state) {
      const void* d_keys = random_input(io::dtype_of<Key>(), n, spread::all_bits);
      using value_t = std::conditional_t<pairs, Value, std::uint32_t>;  // stands in for no_value
      const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(Key);
      const std::size_t value_bytes = static_cast<std::size_t>(n) * sizeof(value_t);
      const radix::sort_buffers buffers{d_keys,
                                        scratch(bytes, 0),
                                        nullptr,
                                        pairs ? random_input(io::dtype_of<value_t>(), n, spread::small_integers, 1) : nullptr,
                                        pairs ? scratch(value_bytes, 1) : nullptr,
                                        nullptr,
                                        false};
      const auto run = [&](void* d_temp, std::size_t& temp_bytes) {
        radix::detail::sort_with_passes<Histogram, Pass, Key, Value, false>(d_temp, temp_bytes, buffers, n, 0,
                                                                            8 * static_cast<int>(sizeof(Key)), true,
                                                                            stream());
      };
      std::size_t temp_bytes = 0;
      run(nullptr, temp_bytes);
      void* d_temp = scratch(temp_bytes, 2);
      time_gpu(state, 2.0 * static_cast<double>(bytes + (pairs ? value_bytes : 0)), n,
               [&] { run(d_temp, temp_bytes); });
    });
  }
}

const bool registered = [] {
  using u32 = std::uint32_t;
  using keys = radix::no_value;
  // The histograms of 4-byte keys' policies (small, large); the other rows differ in their passes.
  using h1 = policy::radix_sort<u32, keys>::small::histogram;
  using h4 = policy::radix_sort<u32, keys>::large::histogram;
  register_policy<h4, policy::radix_sort<u32, keys>::large::onesweep, keys>("large", {16, 17, 18, 19, 20, 22, 24, 28});
  // Occupancy: the large tiles' 80 registers and 62 KiB allow two blocks of 12 warps an SM (ncu: 37%
  // occupancy, ALU 61%, DRAM 52%, 11 cycles a warp between issues).
  register_policy<h4, onesweep_config<512, 16, 0, 2, true>, keys>("512x16", {24, 28});
  register_policy<h4, onesweep_config<512, 20, 0, 2, true>, keys>("512x20", {24, 28});
  register_policy<h4, onesweep_config<512, 24, 0, 2, true>, keys>("512x24", {24, 28});
  register_policy<h4, onesweep_config<256, 24, 0, 4, true>, keys>("256x24_4blocks", {24, 28});
  register_policy<h4, onesweep_config<384, 24, 0, 3, true>, keys>("384x24_3blocks", {24, 28});
  // One block an SM of twice the tile (the same 24 warps an SM, half the tiles and look-backs, but no
  // other block to run through a barrier), and 512 x 24 with the large keys' look-back window of 2.
  register_policy<h4, onesweep_config<768, 32, 0, 1, true, 2>, keys>("768x32_1block", {24, 28});
  register_policy<h4, onesweep_config<768, 24, 0, 1, true, 2>, keys>("768x24_1block", {24, 28});
  register_policy<h4, onesweep_config<512, 24, 0, 2, true, 2>, keys>("512x24_window2", {24, 28});
  register_policy<h4, onesweep_config<768, 24, 0, 1, false, 1>, u32>("768x24_1block", {24, 28});
  using large_keys = policy::radix_sort<u32, keys>::large::onesweep;
  register_policy<radix_histogram_config<256, 2, 16>, large_keys, keys>("large_h2", {28});
  register_policy<radix_histogram_config<256, 8, 16>, large_keys, keys>("large_h8", {28});
  register_policy<h1, onesweep_config<256, 8, 0, 4, true>, keys>("256x8");
  register_policy<h4, onesweep_config<256, 8, 0, 4, true>, keys>("256x8_h4");
  register_policy<h1, onesweep_config<256, 16, 0, 3, true>, keys>("256x16");
  register_policy<h1, onesweep_config<384, 16, 0, 2, true>, keys>("384x16");
  register_policy<h4, policy::radix_sort<u32, u32>::large::onesweep, u32>("large", {16, 17, 18, 19, 20, 22, 24, 28});
  register_policy<h4, onesweep_config<512, 16, 0, 3, false>, u32>("512x16_3blocks", {24, 28});
  register_policy<h4, onesweep_config<384, 24, 0, 3, false>, u32>("384x24_3blocks", {24, 28});
  register_policy<h4, onesweep_config<256, 24, 0, 4, false>, u32>("256x24_4blocks", {24, 28});
  register_policy<h1, onesweep_config<256, 8, 0, 4, false>, u32>("256x8");
  register_policy<h1, onesweep_config<256, 16, 0, 3, false>, u32>("256x16");
  register_policy<h1, onesweep_config<384, 12, 0, 2, false>, u32>("384x12");
  // Look-back reading 1, 2 or 4 predecessors at a time.
  register_policy<h4, onesweep_config<384, 32, 0, 2, true, 1>, keys>("window1", {24, 28});
  register_policy<h4, onesweep_config<384, 32, 0, 2, true, 4>, keys>("window4", {24, 28});
  register_policy<h4, onesweep_config<512, 24, 0, 2, false, 2>, u32>("window2", {24, 28});
  register_policy<h1, onesweep_config<384, 16, 0, 2, true, 2>, keys>("384x16_window2", {16, 18, 19, 20});
  register_policy<h1, onesweep_config<384, 12, 0, 2, false, 2>, u32>("384x12_window2", {16, 18, 20, 21});
  register_policy<h1, onesweep_config<384, 12, 0, 2, false, 4>, u32>("384x12_window4", {16, 18, 20, 21});
  // The histogram's counters (radix_sort/digit_counters.cuh): one copy a block, 16 or 32 copies.
  using h4_single = h4::single_copy;
  using h1_copies = radix_histogram_config<256, 1, 16>;
  register_policy<h4_single, large_keys, keys>("large_copies1", {16, 20, 24, 28});
  register_policy<radix_histogram_config<256, 4, 32>, large_keys, keys>("large_copies32", {24, 28});
  register_policy<h4_single, policy::radix_sort<u32, u32>::large::onesweep, u32>("large_copies1", {20, 24, 28});
  register_policy<h1_copies, policy::radix_sort<u32, keys>::small::onesweep, keys>("384x16_copies16", {16, 18, 20});
  register_policy<h1_copies, policy::radix_sort<u32, u32>::small::onesweep, u32>("384x12_copies16", {16, 18, 20});
  register_policy<h4_single, policy::radix_sort<float, keys>::large::onesweep, keys, float>("large_copies1", {24, 28});
  using wide = policy::radix_sort<std::uint64_t, keys>::large;
  register_policy<wide::histogram, wide::onesweep, keys, std::uint64_t>("large", {24, 27});
  register_policy<radix_histogram_config<256, 4, 16>, wide::onesweep, keys, std::uint64_t>("large_copies16", {24, 27});
  // Skewed digits: floats in [0, 1), whose top byte takes a few values.
  register_policy<h4, policy::radix_sort<float, keys>::large::onesweep, keys, float>("large", {24, 28});
  register_policy<h4, policy::radix_sort<float, u32>::large::onesweep, u32, float>("large", {24, 28});
  // Keys with the votes as ballots; pairs with 8-byte keys or values.
  register_policy<h4, onesweep_config<384, 32, 0, 2, false, 2>, keys>("ballots", {20, 24, 28});
  using u64 = std::uint64_t;
  using wide_pairs = policy::radix_sort<u64, u64>;
  register_policy<wide_pairs::large::histogram, wide_pairs::large::onesweep, u64, u64>("large", {24, 27});
  register_policy<h4, policy::radix_sort<u32, u64>::large::onesweep, u64>("large_u64_values", {24, 28});
  register_policy<wide_pairs::small::histogram, wide_pairs::small::onesweep, u64, u64>("small", {16, 18, 20});
  return true;
}();

}  // namespace
}  // namespace lookback::bench
