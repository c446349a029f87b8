// The pipelined scan (device/scan_lookahead_kernel.cuh) with tiny tiles and few blocks, so that small
// runs (the sanitizers' too) go round every stage many times: every element against the CPU reference,
// outputs poisoned, exclusive and inclusive, carried prefixes, in place, non-commutative operators.
#include "support/affine_op.hpp"
#include "support/gpu_test.hpp"
#include "support/random_values.hpp"
#include "support/test_sizes.hpp"

#include <lookback/primitives/cpu/scan.hpp>
#include <lookback/primitives/detail/scan_lookahead.cuh>
#include <lookback/primitives/device_buffer.cuh>
#include <lookback/primitives/operators.cuh>
#include <lookback/primitives/policy/scan_policy.cuh>
#include <lookback/primitives/scan.cuh>
#include <lookback/primitives/stream.cuh>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace lookback::test {
namespace {

class scan_lookahead : public hopper_gpu_test {};

// One warp a role, 7 items a thread, two stages: tiles of 224 items.
using tiny = policy::scan_lookahead_config<1, 7, 2, 1>;
// Two warps a role, 15 items a thread, three stages, a wait after empty polls: tiles of 960 items.
using small = policy::scan_lookahead_config<2, 15, 3, 2, 100>;

/// 1 to 5 items (under one 16-byte bulk copy), around a warp, around one and two tiles, a prime,
/// 2^20 + 17; those above LOOKBACK_TEST_MAX_N dropped.
std::vector<std::int64_t> sizes_for(std::int64_t tile) {
  std::vector<std::int64_t> sizes;
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{3}, std::int64_t{5}, std::int64_t{31}, std::int64_t{32},
                               std::int64_t{33}, tile - 1, tile, tile + 1, 2 * tile + 3, 9 * tile + 5,
                               std::int64_t{100003}, (std::int64_t{1} << 20) + 17})
    if (n <= max_test_size()) sizes.push_back(n);
  return sizes;
}

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

struct run_options {
  bool inclusive = false;
  bool carried = false;   // the initial value read from, and the total left in, device memory
  bool in_place = false;  // d_out == d_in
  int max_blocks = 0;     // 0: as many as fit the device
};

/// Scans `input` with Policy and checks every element (and the carried total) against the CPU.
template <class Policy, class T, class Op>
void check(const std::vector<T>& input, Op op, const T& init, const run_options& o, const std::string& what) {
  const auto n = static_cast<std::int64_t>(input.size());
  std::vector<T> expected(input.size());
  if (o.inclusive) {
    // A carried inclusive scan starts from the carried prefix.
    std::vector<T> with_init(input);
    with_init[0] = op(init, input[0]);
    cpu::inclusive_scan<T>(with_init.data(), expected.data(), n, op);
  } else {
    cpu::exclusive_scan<T>(input.data(), expected.data(), n, init, op);
  }
  const T expected_total = o.inclusive ? expected.back() : op(expected.back(), input.back());

  const cuda_stream stream;
  auto d_in = to_device(input, stream.get());
  device_buffer<T> d_separate_out(o.in_place ? 0 : input.size(), stream.get());
  if (!o.in_place) d_separate_out.fill_bytes(poison_byte);
  T* const d_out = o.in_place ? d_in.data() : d_separate_out.data();
  const auto d_carry = to_device(std::vector<T>{init, init}, stream.get());
  device_buffer<T> d_total(1, stream.get());
  d_total.fill_bytes(poison_byte);
  device_buffer<std::byte> d_temp(lookback::detail::scan_lookahead_layout<Policy, T>(n).total(), stream.get());
  d_temp.fill_bytes(poison_byte);

  const auto run = [&](auto init_arg) {
    const auto scan = [&](auto exclusive) {
      constexpr bool Exclusive = decltype(exclusive)::value;
      using Init = decltype(init_arg);
      ASSERT_TRUE((lookback::detail::scan_lookahead_applies<Policy, Exclusive, T, Init, Op>(d_in.data(), d_out)));
      lookback::detail::scan_lookahead<Policy, Exclusive>(d_temp.data(), d_in.data(), d_out, init_arg, op, n,
                                                          o.max_blocks, stream.get());
    };
    if (o.inclusive)
      scan(std::false_type{});
    else
      scan(std::true_type{});
  };
  if (o.carried)
    run(carried<T>{d_carry.data(), d_total.data()});
  else if (o.inclusive)
    run(neutral_of<T>(op));
  else
    run(init);
  ASSERT_EQ(cudaStreamSynchronize(stream.get()), cudaSuccess) << what;
  const auto got = to_host(d_out, input.size(), stream.get());
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_TRUE(same_bits(got[i], expected[i])) << what << ": element " << i << " of " << n << " differs";
  if (o.carried) {
    const auto total = to_host(d_total);
    EXPECT_TRUE(same_bits(total[0], expected_total)) << what << ": carried total differs";
  }
}

/// Every size of sizes_for(Policy's tile) with the options, for inclusive and exclusive scans.
template <class Policy, class T, class Op>
void check_sizes(Op op, const T& init, run_options o, const std::string& label) {
  for (const std::int64_t n : sizes_for(Policy::tile_items)) {
    for (const bool inclusive : {false, true}) {
      auto rng = make_rng(static_cast<std::uint64_t>(n) * 7 + inclusive + sizeof(T) * 1000);
      o.inclusive = inclusive;
      const T start = o.inclusive && !o.carried ? neutral_of<T>(op) : init;
      check<Policy>(random_values<T>(n, rng), op, start, o,
                    label + (inclusive ? " inclusive" : " exclusive") + " n=" + std::to_string(n));
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST_F(scan_lookahead, sums_min_max_on_every_size) {
  check_sizes<tiny>(sum{}, std::uint32_t{7}, {}, "uint32 sum");
  check_sizes<tiny>(maximum{}, std::int64_t{-5}, {}, "int64 max");
  check_sizes<small>(minimum{}, std::uint64_t{~0ull}, {}, "uint64 min");
  check_sizes<small>(sum{}, 3.0f, {}, "float32 sum");
  check_sizes<small>(sum{}, 3.0, {}, "float64 sum");
}

TEST_F(scan_lookahead, few_blocks_go_round_their_stages) {
  for (const int blocks : {1, 2, 3}) {
    run_options o;
    o.max_blocks = blocks;
    check_sizes<tiny>(sum{}, std::int32_t{1}, o, std::to_string(blocks) + " blocks, int32 sum");
    check_sizes<small>(sum{}, std::uint64_t{1}, o, std::to_string(blocks) + " blocks, uint64 sum");
  }
}

TEST_F(scan_lookahead, non_commutative_operator) {
  run_options o;
  o.max_blocks = 2;
  check_sizes<tiny>(compose{}, affine<std::uint16_t>{3, 5}, {}, "4-byte affine");
  check_sizes<small>(compose{}, affine<std::uint32_t>{3, 5}, o, "8-byte affine, 2 blocks");
}

TEST_F(scan_lookahead, carried_prefix_and_total) {
  run_options o;
  o.carried = true;
  check_sizes<tiny>(sum{}, std::uint32_t{11}, o, "carried uint32 sum");
  o.max_blocks = 2;
  check_sizes<small>(compose{}, affine<std::uint32_t>{3, 5}, o, "carried 8-byte affine, 2 blocks");
}

TEST_F(scan_lookahead, in_place) {
  run_options o;
  o.in_place = true;
  check_sizes<tiny>(sum{}, std::uint32_t{2}, o, "in place uint32 sum");
  o.max_blocks = 1;
  check_sizes<small>(sum{}, std::int64_t{2}, o, "in place int64 sum, 1 block");
}

TEST_F(scan_lookahead, misaligned_arrays_take_the_look_back) {
  using p = policy::scan<std::uint32_t>;
  // Past the small arrays, which take two kernels whatever their alignment.
  const std::int64_t n = std::min<std::int64_t>(max_test_size(), p::reduce_then_scan_max_bytes / 4 + 1000);
  auto rng = make_rng(77);
  const auto input = random_values<std::uint32_t>(n + 1, rng);
  const cuda_stream stream;
  const auto d_in = to_device(input, stream.get());
  device_buffer<std::uint32_t> d_out(input.size(), stream.get());
  d_out.fill_bytes(poison_byte);
  // One item in: 4 bytes past a 16-byte boundary.
  EXPECT_FALSE((lookback::detail::scan_lookahead_applies<p::lookahead, true, std::uint32_t, std::uint32_t, sum>(
      d_in.data() + 1, d_out.data() + 1)));
  exclusive_scan(d_in.data() + 1, d_out.data() + 1, std::uint32_t{5}, sum{}, n, stream.get());
  const auto got = to_host(d_out);
  std::vector<std::uint32_t> expected(static_cast<std::size_t>(n));
  cpu::exclusive_scan<std::uint32_t>(input.data() + 1, expected.data(), n, std::uint32_t{5}, sum{});
  ASSERT_EQ(got[0], poison_byte * 0x01010101u) << "the item before the output array was written";
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(got[i + 1], expected[i]) << "element " << i << " of " << n;
}

TEST_F(scan_lookahead, production_policies) {
  check_sizes<policy::scan<std::uint32_t>::lookahead>(sum{}, std::uint32_t{7}, {}, "uint32 sum");
  check_sizes<policy::scan<std::uint64_t>::lookahead>(sum{}, std::uint64_t{7}, {}, "uint64 sum");
  check_sizes<policy::scan<std::uint64_t>::lookahead_small>(sum{}, std::uint64_t{7}, {}, "uint64 sum, small sizes");
}

}  // namespace
}  // namespace lookback::test
