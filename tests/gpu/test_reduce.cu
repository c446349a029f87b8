// The reduction: every dtype and operator against the CPU reference and CUB; run-to-run determinism;
// unaligned and iterator inputs; the template API.
#include "support/gpu_test.hpp"
#include "typed/reference.hpp"
#include "support/test_sizes.hpp"
#include "support/typed_gpu.hpp"

#include <lookback/primitives/reduce.cuh>

#include <thrust/iterator/counting_iterator.h>

#include <cstring>
#include <tuple>

namespace lookback::test {
namespace {

using typed::implementation;
using typed::op_kind;

void check_reduce(op_kind op, const io::host_array& input) {
  const std::string what = std::string(io::dtype_name(input.type)) + " " + std::string(typed::op_name(op)) +
                           " n=" + std::to_string(input.size());
  const auto ours = gpu_reduce(implementation::lookback, op, input);
  if (const auto e = reduce_error(op, input, ours.data()))
    ADD_FAILURE() << what << ": " << e->actual << ", reference " << e->expected;
  // CUB's result for an empty input is its own convention (numeric_limits::max for a float min,
  // where ours is the identity +inf); the CPU reference above covers n = 0.
  if (input.size() == 0) return;
  const auto cub = gpu_reduce(implementation::cub, op, input);
  if (const auto e = typed::reduce_mismatch(input.type, op, input.bytes.data(), input.size(), cub.data(), ours.data()))
    ADD_FAILURE() << what << ": " << e->actual << ", CUB " << e->expected;
}

using matrix_param = std::tuple<io::dtype, op_kind>;
class reduce_matrix : public gpu_test, public ::testing::WithParamInterface<matrix_param> {};

TEST_P(reduce_matrix, matches_cpu_reference_and_cub) {
  const auto [type, op] = GetParam();
  // One trip of the vectorised loop is 256 threads x 4 vectors of 16 bytes.
  const std::int64_t trip = 256 * 4 * 16 / static_cast<std::int64_t>(io::dtype_size(type));
  for (const std::int64_t n : sizes_around(trip)) {
    auto rng = make_rng(static_cast<std::uint64_t>(n) * 31 + static_cast<int>(type) * 3 + static_cast<int>(op));
    check_reduce(op, random_array(type, n, distribution::small, rng));
    // Exact float sums (whole numbers): a dropped or repeated item shows.
    if (io::is_floating(type) && op == op_kind::sum) check_reduce(op, random_array(type, n, distribution::whole, rng));
    if (n < 100000) check_reduce(op, random_array(type, n, distribution::signed_, rng));
  }
}

INSTANTIATE_TEST_SUITE_P(all, reduce_matrix,
                         ::testing::Combine(::testing::Values(io::dtype::int32, io::dtype::uint32, io::dtype::int64,
                                                              io::dtype::uint64, io::dtype::float32, io::dtype::float64),
                                            ::testing::Values(op_kind::sum, op_kind::min, op_kind::max)),
                         [](const ::testing::TestParamInfo<matrix_param>& info) {
                           return std::string(io::dtype_name(std::get<0>(info.param))) + "_" +
                                  std::string(typed::op_name(std::get<1>(info.param)));
                         });

class reduce_large : public gpu_test {};

TEST_F(reduce_large, sum_at_2_pow_28) {
  if ((std::int64_t{1} << 28) > max_test_size()) GTEST_SKIP() << "above LOOKBACK_TEST_MAX_N";
  for (const io::dtype type : {io::dtype::uint32, io::dtype::float32, io::dtype::uint64}) {
    auto rng = make_rng(280 + static_cast<int>(type));
    check_reduce(op_kind::sum, random_array(type, std::int64_t{1} << 28, distribution::small, rng));
  }
}

TEST_F(reduce_large, DISABLED_huge_past_2_pow_31) {
  auto rng = make_rng(310);
  check_reduce(op_kind::sum, random_array(io::dtype::uint32, (std::int64_t{1} << 31) + 77, distribution::small, rng));
}

class reduce_api : public gpu_test {};

// Fixed grid and fixed combination order: the same float sum, bit for bit, on every run.
TEST_F(reduce_api, floating_point_sum_is_deterministic) {
  const std::int64_t n = std::min<std::int64_t>(max_test_size(), (std::int64_t{1} << 24) + 11);
  auto rng = make_rng(1);
  const io::host_array input = random_array(io::dtype::float32, n, distribution::signed_, rng);
  const auto first = gpu_reduce(implementation::lookback, op_kind::sum, input);
  for (int run = 0; run < 20; ++run)
    ASSERT_EQ(0, std::memcmp(first.data(), gpu_reduce(implementation::lookback, op_kind::sum, input).data(), 4))
        << "run " << run;
}

TEST_F(reduce_api, unaligned_pointer_and_iterator_inputs) {
  const std::int64_t n = std::min<std::int64_t>(max_test_size(), 1000003);
  std::vector<std::uint32_t> host(static_cast<std::size_t>(n) + 1);
  auto rng = make_rng(2);
  for (auto& x : host) x = static_cast<std::uint32_t>(rng() % 1000);
  const cuda_stream stream;
  const auto d = to_device(host, stream);
  std::uint64_t expected = 0;
  for (std::int64_t i = 1; i <= n; ++i) expected += host[i];
  // d + 1 is 4-byte but not 16-byte aligned: the scalar path must take it.
  EXPECT_EQ(reduce_to_host(d.data() + 1, n, sum{}, std::uint32_t{0}, stream.get()), static_cast<std::uint32_t>(expected));
  EXPECT_EQ(reduce_to_host(thrust::counting_iterator<std::int64_t>(1), n, sum{}, std::int64_t{5}, stream.get()),
            5 + n * (n + 1) / 2);
  EXPECT_EQ(reduce_to_host(d.data(), 0, maximum{}, std::uint32_t{42}, stream.get()), 42u) << "n = 0 gives init";
}

// No gpu_test fixture: the arrays are checked before any CUDA call, so this runs without a GPU too.
TEST(reduce_arguments, null_arrays_are_refused) {
  untouched_storage storage;
  auto* somewhere = static_cast<double*>(storage.get());  // never dereferenced: the calls refuse first
  double* none = nullptr;
  expect_refused("d_in", [&] { reduce(storage.get(), storage.bytes, none, somewhere, 10, sum{}, 1.0); });
  // The result is written even of nothing.
  expect_refused("d_out", [&] { reduce(storage.get(), storage.bytes, somewhere, none, 0, sum{}, 1.0); });
}

TEST_F(reduce_api, a_null_input_with_no_items_gives_init) {
  const cuda_stream stream;
  device_buffer<double> d_out(1, stream);
  d_out.fill_bytes(poison_byte);
  std::size_t bytes = 0;
  const double* none = nullptr;
  reduce(nullptr, bytes, none, d_out.data(), 0, sum{}, 2.5, stream.get());
  device_buffer<std::byte> d_temp(std::max<std::size_t>(bytes, 1), stream);
  reduce(d_temp.data(), bytes, none, d_out.data(), 0, sum{}, 2.5, stream.get());
  EXPECT_EQ(to_host(d_out).front(), 2.5);
}

TEST_F(reduce_api, result_stays_on_device_with_caller_storage) {
  const std::int64_t n = std::min<std::int64_t>(max_test_size(), 77777);
  std::vector<double> host(static_cast<std::size_t>(n), 0.5);
  const cuda_stream stream;
  const auto d_in = to_device(host, stream);
  device_buffer<double> d_out(1, stream);
  d_out.fill_bytes(poison_byte);
  std::size_t bytes = 0;
  reduce(nullptr, bytes, d_in.data(), d_out.data(), n, sum{}, 1.0, stream.get());
  device_buffer<std::byte> d_temp(bytes, stream);
  reduce(d_temp.data(), bytes, d_in.data(), d_out.data(), n, sum{}, 1.0, stream.get());
  EXPECT_EQ(to_host(d_out).front(), 1.0 + 0.5 * static_cast<double>(n));
}

}  // namespace
}  // namespace lookback::test
