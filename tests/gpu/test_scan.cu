// The single-pass scan: every dtype, operator and mode against the CPU reference and CUB, then the
// template API itself (user-defined non-commutative operators, in place, iterators, allocators).
#include "support/affine_op.hpp"
#include "support/gpu_test.hpp"
#include "typed/reference.hpp"
#include "support/test_sizes.hpp"
#include "support/typed_gpu.hpp"

#include <lookback/primitives/cpu/scan.hpp>
#include <lookback/primitives/policy/scan_policy.cuh>
#include <lookback/primitives/scan.cuh>

#include <thrust/iterator/counting_iterator.h>

#include <cstring>
#include <tuple>
#include <vector>

namespace lookback::test {
namespace {

using typed::op_kind;
using typed::implementation;

/// The small tiles' size.
std::int64_t tile_items(io::dtype type) {
  return io::dtype_size(type) <= 4 ? policy::scan<std::uint32_t>::small::tile_items
                                   : policy::scan<std::uint64_t>::small::tile_items;
}

/// Around one and two small tiles, and, for sums (the other operators take the same path), where the
/// policy changes to the large tiles.
std::vector<std::int64_t> matrix_sizes(io::dtype type, op_kind op) {
  if (op != op_kind::sum) return sizes_around(tile_items(type));
  const auto around_switch = [](auto policy) {
    using p = decltype(policy);
    std::vector<std::int64_t> large_boundaries;
    auto sizes = sizes_around_switch(p::small::tile_items, p::small_max_items, p::large::tile_items, large_boundaries);
    // Where the pipelined scan takes over (on Hopper and later), and around its first tiles there.
    for (const std::int64_t n : {p::lookahead_min_items - 1, p::lookahead_min_items,
                                 p::lookahead_min_items + p::lookahead::tile_items + 1})
      if (n <= max_test_size()) sizes.push_back(n);
    return sizes;
  };
  return io::dtype_size(type) <= 4 ? around_switch(policy::scan<std::uint32_t>{})
                                   : around_switch(policy::scan<std::uint64_t>{});
}

std::string describe(const typed::scan_spec& spec, std::int64_t n) {
  return std::string(io::dtype_name(spec.type)) + (spec.inclusive ? " inclusive " : " exclusive ") +
         std::string(typed::op_name(spec.op)) + " n=" + std::to_string(n);
}

void check_scan(const typed::scan_spec& spec, const io::host_array& input) {
  const std::int64_t n = input.size();
  const auto ours = gpu_scan(implementation::lookback, spec, input);
  if (const auto e = scan_error(spec, input, ours.data()))
    ADD_FAILURE() << describe(spec, n) << ": element " << e->index << " is " << e->actual << ", reference " << e->expected;
  const auto cub = gpu_scan(implementation::cub, spec, input);
  if (const auto e = typed::first_scan_mismatch(spec, input.bytes.data(), cub.data(), ours.data(), n))
    ADD_FAILURE() << describe(spec, n) << ": element " << e->index << " is " << e->actual << ", CUB " << e->expected;
}

using matrix_param = std::tuple<io::dtype, op_kind, bool>;
class scan_matrix : public gpu_test, public ::testing::WithParamInterface<matrix_param> {};

TEST_P(scan_matrix, matches_cpu_reference_and_cub) {
  const auto [type, op, inclusive] = GetParam();
  for (const std::int64_t n : matrix_sizes(type, op)) {
    auto rng = make_rng(static_cast<std::uint64_t>(n) * 131 + static_cast<int>(type) * 7 + static_cast<int>(op));
    typed::scan_spec spec{type, op, inclusive, typed::identity(type, op)};
    // A non-identity initial value checks that it reaches every tile's prefix exactly once.
    if (!inclusive && op == op_kind::sum) spec.init = *typed::parse_scalar(type, "7");
    check_scan(spec, random_array(type, n, distribution::small, rng));
  }
}

TEST_P(scan_matrix, full_range_and_constant_inputs) {
  const auto [type, op, inclusive] = GetParam();
  for (const std::int64_t n : {std::int64_t{33}, 3 * tile_items(type) + 5, std::int64_t{100003}}) {
    if (n > max_test_size()) continue;
    auto rng = make_rng(static_cast<std::uint64_t>(n) * 17 + static_cast<int>(type));
    const typed::scan_spec spec{type, op, inclusive, typed::identity(type, op)};
    check_scan(spec, random_array(type, n, distribution::signed_, rng));
    check_scan(spec, random_array(type, n, distribution::constant, rng));
  }
}

const io::dtype all_types[] = {io::dtype::int32, io::dtype::uint32, io::dtype::int64,
                               io::dtype::uint64, io::dtype::float32, io::dtype::float64};

INSTANTIATE_TEST_SUITE_P(all, scan_matrix,
                         ::testing::Combine(::testing::ValuesIn(all_types),
                                            ::testing::Values(op_kind::sum, op_kind::min, op_kind::max),
                                            ::testing::Bool()),
                         [](const ::testing::TestParamInfo<matrix_param>& info) {
                           return std::string(io::dtype_name(std::get<0>(info.param))) + "_" +
                                  std::string(typed::op_name(std::get<1>(info.param))) +
                                  (std::get<2>(info.param) ? "_inclusive" : "_exclusive");
                         });

class scan_large : public gpu_test {};

TEST_F(scan_large, sum_at_2_pow_28) {
  if ((std::int64_t{1} << 28) > max_test_size()) GTEST_SKIP() << "above LOOKBACK_TEST_MAX_N";
  for (const io::dtype type : {io::dtype::uint32, io::dtype::float32, io::dtype::uint64}) {
    auto rng = make_rng(28 + static_cast<int>(type));
    const typed::scan_spec spec{type, op_kind::sum, false, typed::identity(type, op_kind::sum)};
    check_scan(spec, random_array(type, std::int64_t{1} << 28, distribution::small, rng));
  }
}

// Past 2^31 items: 64-bit sizes and offsets throughout. Run by the GPU bundle
// (--gtest_also_run_disabled_tests); it needs about 17 GB of device memory.
TEST_F(scan_large, DISABLED_huge_past_2_pow_31) {
  const std::int64_t n = (std::int64_t{1} << 31) + 4099;
  auto rng = make_rng(31);
  const io::host_array input = random_array(io::dtype::uint32, n, distribution::small, rng);
  const typed::scan_spec spec{io::dtype::uint32, op_kind::sum, true, typed::identity(io::dtype::uint32, op_kind::sum)};
  const auto ours = gpu_scan(implementation::lookback, spec, input);
  if (const auto e = scan_error(spec, input, ours.data()))
    FAIL() << "element " << e->index << " is " << e->actual << ", reference " << e->expected;
}

// Look-back races show up as rare errors that move between runs: repeat one scan many times and
// check every run exactly, for the packed (4-byte) and the wide (8-byte) descriptors.
TEST_F(scan_large, stress_repeated_runs_are_exact) {
  for (const io::dtype type : {io::dtype::uint32, io::dtype::int64}) {
    const std::int64_t n = std::min<std::int64_t>(max_test_size(), (std::int64_t{1} << 22) + 3);
    auto rng = make_rng(99 + static_cast<int>(type));
    const io::host_array input = random_array(type, n, distribution::small, rng);
    const typed::scan_spec spec{type, op_kind::sum, false, typed::identity(type, op_kind::sum)};
    std::vector<std::byte> expected(input.bytes.size());
    typed::scan_cpu(spec, input.bytes.data(), expected.data(), n);

    expect_repeated_runs_exact(input, expected, n > 100000 ? 200 : 20,
                               [&](void* t, std::size_t& b, const void* in, void* out, cudaStream_t s) {
                                 typed::scan(implementation::lookback, spec, t, b, in, out, n, s);
                               });
  }
}

template <class Word>
void check_affine_scan(std::int64_t n, bool inclusive) {
  using T = affine<Word>;
  auto rng = make_rng(static_cast<std::uint64_t>(n) + sizeof(Word) * 1000 + inclusive);
  std::vector<T> input(static_cast<std::size_t>(n));
  for (auto& f : input) f = T{static_cast<Word>(rng() | 1), static_cast<Word>(rng())};
  const T init{3, 5};
  std::vector<T> expected(input.size());
  if (inclusive)
    cpu::inclusive_scan<T>(input.data(), expected.data(), n, compose{});
  else
    cpu::exclusive_scan<T>(input.data(), expected.data(), n, init, compose{});

  const cuda_stream stream;
  const auto d_in = to_device(input, stream);
  device_buffer<T> d_out(input.size(), stream);
  d_out.fill_bytes(poison_byte);
  if (inclusive)
    inclusive_scan(d_in.data(), d_out.data(), compose{}, n, stream.get());
  else
    exclusive_scan(d_in.data(), d_out.data(), init, compose{}, n, stream.get());
  const auto got = to_host(d_out);
  for (std::int64_t i = 0; i < n; ++i)
    ASSERT_TRUE(got[i] == expected[i]) << sizeof(T) << "-byte affine " << (inclusive ? "inclusive" : "exclusive")
                                       << " n=" << n << ": element " << i << " differs";
}

class scan_api : public gpu_test {};

TEST_F(scan_api, non_commutative_operator_on_every_descriptor_kind) {
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{4097}, std::int64_t{300007}, std::int64_t{1} << 21}) {
    if (n > max_test_size()) continue;
    for (const bool inclusive : {false, true}) {
      check_affine_scan<std::uint16_t>(n, inclusive);  // 4 bytes: value and status in one 8-byte word
      check_affine_scan<std::uint32_t>(n, inclusive);  // 8 bytes: value and status in one 16-byte word
      check_affine_scan<std::uint64_t>(n, inclusive);  // 16 bytes: value, release, then status
    }
  }
}

TEST_F(scan_api, in_place) {
  const std::int64_t n = std::min<std::int64_t>(max_test_size(), 1234567);
  auto rng = make_rng(5);
  const io::host_array input = random_array(io::dtype::int32, n, distribution::small, rng);
  const cuda_stream stream;
  auto d_data = to_device(input.bytes, stream);
  auto* d = reinterpret_cast<std::int32_t*>(d_data.data());
  inclusive_scan(d, d, sum{}, n, stream.get());
  const auto got = to_host(d_data);
  const typed::scan_spec spec{io::dtype::int32, op_kind::sum, true, {}};
  if (const auto e = scan_error(spec, input, got.data())) FAIL() << "element " << e->index << " is " << e->actual;
}

TEST_F(scan_api, iterator_input_and_caller_allocator) {
  struct counting_allocator {
    int* calls;
    void* allocate(std::size_t bytes, cudaStream_t s) const {
      ++*calls;
      return stream_allocator{}.allocate(bytes, s);
    }
    void deallocate(void* p, std::size_t bytes, cudaStream_t s) const { stream_allocator{}.deallocate(p, bytes, s); }
  };
  const std::int64_t n = std::min<std::int64_t>(max_test_size(), 100000);
  int calls = 0;
  const cuda_stream stream;
  device_buffer<std::int64_t> d_out(static_cast<std::size_t>(n), stream);
  d_out.fill_bytes(poison_byte);
  exclusive_scan(thrust::counting_iterator<std::int64_t>(0), d_out.data(), std::int64_t{10}, sum{}, n, stream.get(),
                 counting_allocator{&calls});
  const auto got = to_host(d_out);
  EXPECT_EQ(calls, 1);
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(got[i], 10 + i * (i - 1) / 2) << "element " << i;
}

TEST_F(scan_api, temporary_storage_eight_bytes_past_alignment) {
  // Cleared a byte at a time rather than by 16-byte stores (detail/clear_then_launch.cuh); poisoned
  // first, on the look-back kernel's sizes and the pipelined one's.
  auto rng = make_rng(11);
  for (const std::int64_t n : {std::int64_t{1000}, std::int64_t{300007}, std::int64_t{1} << 20}) {
    if (n > max_test_size()) continue;
    const io::host_array input = random_array(io::dtype::uint32, n, distribution::small, rng);
    const cuda_stream stream;
    const auto d_in = to_device(input.bytes, stream);
    const auto* in = reinterpret_cast<const std::uint32_t*>(d_in.data());
    device_buffer<std::uint32_t> d_out(static_cast<std::size_t>(n), stream);
    d_out.fill_bytes(poison_byte);
    std::size_t bytes = 0;
    exclusive_scan(nullptr, bytes, in, d_out.data(), 0u, sum{}, n, stream.get());
    device_buffer<unsigned char> d_temp(bytes + 8, stream);
    d_temp.fill_bytes(poison_byte);
    exclusive_scan(d_temp.data() + 8, bytes, in, d_out.data(), 0u, sum{}, n, stream.get());
    const auto got = to_host(d_out);
    const typed::scan_spec spec{io::dtype::uint32, op_kind::sum, false, {}};
    if (const auto e = scan_error(spec, input, got.data()))
      FAIL() << "n=" << n << ": element " << e->index << " is " << e->actual;
  }
}

TEST_F(scan_api, rejects_bad_arguments) {
  std::size_t bytes = 0;
  int* d = nullptr;
  EXPECT_THROW(exclusive_scan(nullptr, bytes, d, d, 0, sum{}, -1), std::invalid_argument);
  exclusive_scan(nullptr, bytes, d, d, 0, sum{}, 1 << 20);
  EXPECT_GT(bytes, 0u);
  std::size_t too_small = bytes - 1;
  EXPECT_THROW(exclusive_scan(reinterpret_cast<void*>(256), too_small, d, d, 0, sum{}, 1 << 20), std::invalid_argument);
}

}  // namespace
}  // namespace lookback::test
