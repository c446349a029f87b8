// The single-pass scan: every dtype, operator and mode against the CPU reference and CUB, then the
// template API itself (user-defined non-commutative operators, in place, iterators, allocators).
#include "support/affine_op.hpp"
#include "support/gpu_test.hpp"
#include "support/random_values.hpp"
#include "typed/reference.hpp"
#include "support/test_sizes.hpp"
#include "support/typed_gpu.hpp"

#include <lookback/primitives/cpu/scan.hpp>
#include <lookback/primitives/policy/scan_policy.cuh>
#include <lookback/primitives/scan.cuh>

#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <tuple>
#include <type_traits>
#include <vector>

namespace lookback::test {
namespace {

using typed::op_kind;
using typed::implementation;

/// The tiles of the reduce-then-scan that small arrays take.
std::int64_t tile_items(io::dtype type) {
  return io::dtype_size(type) <= 4 ? policy::scan<std::uint32_t>::reduce_then_scan::tile_items
                                   : policy::scan<std::uint64_t>::reduce_then_scan::tile_items;
}

/// Around one and two tiles of the small arrays' scan, and, for sums (the other operators take the same
/// paths), where larger arrays change to the look-back or the pipelined scan and where the look-back's
/// tiles grow.
std::vector<std::int64_t> matrix_sizes(io::dtype type, op_kind op) {
  if (op != op_kind::sum) return sizes_around(tile_items(type));
  const auto around_switch = [type](auto policy) {
    using p = decltype(policy);
    std::vector<std::int64_t> large_boundaries;
    auto sizes = sizes_around_switch(p::reduce_then_scan::tile_items, p::small_max_items, p::large::tile_items,
                                     large_boundaries);
    const std::int64_t small_arrays_max = p::reduce_then_scan_max_bytes / io::dtype_size(type);
    // Past the small arrays, and around the pipelined scan's first tiles there (on Hopper and later).
    for (const std::int64_t n : {small_arrays_max, small_arrays_max + 1, small_arrays_max + p::small::tile_items + 1,
                                 small_arrays_max + p::lookahead_small::tile_items + 1})
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
    // Whole numbers make a float sum exact in any order, so its check is exact too: a dropped or
    // repeated item shows, where the allowance of fractional sums could hide it.
    if (io::is_floating(type) && op == op_kind::sum) check_scan(spec, random_array(type, n, distribution::whole, rng));
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

using float_sum_param = std::tuple<io::dtype, bool>;
class float_sum_scan : public gpu_test, public ::testing::WithParamInterface<float_sum_param> {};

// A float sum starts from the first item, not from +0.0 (which would turn a leading -0.0 into +0.0):
// on every path (the small arrays' two kernels, the look-back, the pipeline), inclusive and exclusive
// from either zero, bit for bit with CUB and the CPU.
TEST_P(float_sum_scan, negative_zeros_keep_their_sign) {
  const auto [type, inclusive] = GetParam();
  const op_kind op = op_kind::sum;
  for (const std::int64_t n : matrix_sizes(type, op)) {
    if (n == 0) continue;
    auto rng = make_rng(static_cast<std::uint64_t>(n) * 71 + static_cast<int>(type));
    const io::host_array input = random_array(type, n, distribution::negative_zeros, rng);
    for (const char* init : {"-0.0", "0.0"}) {
      if (inclusive && std::string(init) == "0.0") continue;
      typed::scan_spec spec{type, op, inclusive, *typed::parse_scalar(type, init)};
      const auto ours = gpu_scan(implementation::lookback, spec, input);
      const auto cub = gpu_scan(implementation::cub, spec, input);
      std::vector<std::byte> cpu(input.bytes.size());
      typed::scan_cpu(spec, input.bytes.data(), cpu.data(), n);
      EXPECT_TRUE(ours == cub) << describe(spec, n) << " from " << init << ": differs from CUB's bits";
      EXPECT_TRUE(ours == cpu) << describe(spec, n) << " from " << init << ": differs from the CPU's bits";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(all, float_sum_scan,
                         ::testing::Combine(::testing::Values(io::dtype::float32, io::dtype::float64), ::testing::Bool()),
                         [](const ::testing::TestParamInfo<float_sum_param>& info) {
                           return std::string(io::dtype_name(std::get<0>(info.param))) +
                                  (std::get<1>(info.param) ? "_inclusive" : "_exclusive");
                         });

class scan_large : public gpu_test {};

TEST_F(scan_large, sum_at_2_pow_28) {
  if ((std::int64_t{1} << 28) > max_test_size()) GTEST_SKIP() << "above LOOKBACK_TEST_MAX_N";
  for (const io::dtype type : {io::dtype::uint32, io::dtype::float32, io::dtype::uint64}) {
    auto rng = make_rng(28 + static_cast<int>(type));
    const io::host_array input = random_array(type, std::int64_t{1} << 28, distribution::small, rng);
    for (const bool inclusive : {false, true})
      check_scan(typed::scan_spec{type, op_kind::sum, inclusive, typed::identity(type, op_kind::sum)}, input);
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

/// The CPU's scan: exclusive from `init`, or inclusive from the identity.
template <class T, class Op>
std::vector<T> cpu_scan(const std::vector<T>& input, const T& init, Op op, bool inclusive) {
  std::vector<T> expected(input.size());
  const auto n = static_cast<std::int64_t>(input.size());
  if (inclusive)
    cpu::inclusive_scan<T>(input.data(), expected.data(), n, op);
  else
    cpu::exclusive_scan<T>(input.data(), expected.data(), n, init, op);
  return expected;
}

/// Runs `scan(d_in, d_out, stream)` on `input` into a poisoned output and checks every element.
template <class T, class Scan>
void check_every_element(const std::vector<T>& input, const std::vector<T>& expected, const std::string& what,
                         Scan scan) {
  const cuda_stream stream;
  const auto d_in = to_device(input, stream);
  device_buffer<T> d_out(input.size(), stream);
  d_out.fill_bytes(poison_byte);
  scan(d_in.data(), d_out.data(), stream.get());
  const auto got = to_host(d_out);
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_TRUE(got[i] == expected[i]) << what << " n=" << input.size() << ": element " << i << " differs";
}

template <class Word>
void check_affine_scan(std::int64_t n, bool inclusive) {
  using T = affine<Word>;
  auto rng = make_rng(static_cast<std::uint64_t>(n) + sizeof(Word) * 1000 + inclusive);
  const auto input = random_values<T>(n, rng);
  const T init{3, 5};
  const std::string what = std::to_string(sizeof(T)) + "-byte affine " + (inclusive ? "inclusive" : "exclusive");
  check_every_element(input, cpu_scan(input, init, compose{}, inclusive), what,
                      [&](const T* d_in, T* d_out, cudaStream_t stream) {
                        if (inclusive)
                          inclusive_scan(d_in, d_out, compose{}, n, stream);
                        else
                          exclusive_scan(d_in, d_out, init, compose{}, n, stream);
                      });
}

/// The look-back kernel with Policy, called directly, exclusive and inclusive, around its tiles.
template <class Policy, class T, class Op>
void check_look_back_policy(Op op, const T& init, const std::string& label) {
  for (const std::int64_t n : sizes_around(Policy::tile_items)) {
    if (n > (std::int64_t{1} << 21)) continue;  // the CPU's affine reference is slow past that
    for (const bool inclusive : {false, true}) {
      auto rng = make_rng(static_cast<std::uint64_t>(n) * 3 + inclusive + sizeof(T));
      const auto input = random_values<T>(n, rng);
      check_every_element(input, cpu_scan(input, init, op, inclusive), label + (inclusive ? " inclusive" : " exclusive"),
                          [&](const T* d_in, T* d_out, cudaStream_t stream) {
                            const auto call = [&](void* d_temp, std::size_t& bytes) {
                              if (inclusive)
                                detail::scan_with_policy<Policy, false>(d_temp, bytes, d_in, d_out, neutral_of<T>(op),
                                                                        op, n, stream);
                              else
                                detail::scan_with_policy<Policy, true>(d_temp, bytes, d_in, d_out, init, op, n, stream);
                            };
                            std::size_t bytes = 0;
                            call(nullptr, bytes);
                            device_buffer<unsigned char> d_temp(bytes, stream);
                            d_temp.fill_bytes(poison_byte);
                            call(d_temp.data(), bytes);
                          });
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

class scan_api : public gpu_test {};

TEST_F(scan_api, non_commutative_operator_on_every_descriptor_kind) {
  // 2^18 and 2^20 - 2047 and 2^20: small arrays with more tiles than a block has threads, so that each
  // thread folds a run of aggregates in order.
  for (const std::int64_t n : {std::int64_t{1}, std::int64_t{4097}, std::int64_t{1} << 18, std::int64_t{300007},
                               (std::int64_t{1} << 20) - 2047, std::int64_t{1} << 20, std::int64_t{1} << 21}) {
    if (n > max_test_size()) continue;
    for (const bool inclusive : {false, true}) {
      check_affine_scan<std::uint16_t>(n, inclusive);  // 4 bytes: value and status in one 8-byte word
      check_affine_scan<std::uint32_t>(n, inclusive);  // 8 bytes: value and status in one 16-byte word
      check_affine_scan<std::uint64_t>(n, inclusive);  // 16 bytes: value, release, then status
    }
  }
}

// The public scan takes the look-back kernel only where neither the small arrays' scan nor the
// pipelined one applies (larger arrays misaligned or read through iterators, GPUs before Hopper): each
// of its policies called directly, on every descriptor kind.
TEST_F(scan_api, look_back_kernel_with_each_policy) {
  check_look_back_policy<policy::scan<std::uint32_t>::small>(sum{}, std::uint32_t{7}, "uint32 sum, small tiles");
  check_look_back_policy<policy::scan<std::uint32_t>::large>(sum{}, std::uint32_t{7}, "uint32 sum, large tiles");
  check_look_back_policy<policy::scan<std::uint64_t>::small>(sum{}, std::uint64_t{7}, "uint64 sum, small tiles");
  check_look_back_policy<policy::scan<std::uint64_t>::large>(sum{}, std::uint64_t{7}, "uint64 sum, large tiles");
  check_look_back_policy<policy::scan<affine<std::uint16_t>>::small>(compose{}, affine<std::uint16_t>{3, 5},
                                                                    "4-byte affine");
  check_look_back_policy<policy::scan<affine<std::uint32_t>>::small>(compose{}, affine<std::uint32_t>{3, 5},
                                                                    "8-byte affine");
  check_look_back_policy<policy::scan<affine<std::uint64_t>>::small>(compose{}, affine<std::uint64_t>{3, 5},
                                                                    "16-byte affine");
}

// The large look-back policy where the public scan would take it on a GPU before Hopper (past 2^22
// items, thousands of tiles chained), called directly: on Hopper the pipelined scan takes those sizes.
TEST_F(scan_api, look_back_kernel_large_tiles_over_thousands_of_tiles) {
  const std::int64_t n = std::min<std::int64_t>(max_test_size(), (std::int64_t{1} << 23) + 5);
  const auto run = [&](auto zero) {
    using T = decltype(zero);
    using Policy = typename policy::scan<T>::large;
    auto rng = make_rng(static_cast<std::uint64_t>(n) + sizeof(T));
    const auto input = random_values<T>(n, rng);
    for (const bool inclusive : {false, true})
      check_every_element(input, cpu_scan(input, T{7}, sum{}, inclusive),
                          std::string(sizeof(T) == 4 ? "uint32" : "uint64") + (inclusive ? " inclusive" : " exclusive"),
                          [&](const T* d_in, T* d_out, cudaStream_t stream) {
                            const auto call = [&](void* d_temp, std::size_t& bytes) {
                              if (inclusive)
                                detail::scan_with_policy<Policy, false>(d_temp, bytes, d_in, d_out, T{0}, sum{}, n, stream);
                              else
                                detail::scan_with_policy<Policy, true>(d_temp, bytes, d_in, d_out, T{7}, sum{}, n, stream);
                            };
                            std::size_t bytes = 0;
                            call(nullptr, bytes);
                            device_buffer<unsigned char> d_temp(bytes, stream);
                            d_temp.fill_bytes(poison_byte);
                            call(d_temp.data(), bytes);
                          });
  };
  run(std::uint32_t{});
  run(std::uint64_t{});
}

// One sequence scanned in chunks, each carrying the prefix to the next through device memory
// (scan_carry.cuh): empty chunks, chunks on each path (small arrays, the pipelined scan, the look-back
// where a chunk starts misaligned), every element and the last total checked.
TEST_F(scan_api, carried_prefix_across_chunks_of_every_size) {
  using p = policy::scan<std::uint32_t>;
  const std::int64_t small_max = p::reduce_then_scan_max_bytes / 4;
  // Chunk 6 starts 16-byte aligned (the pipelined scan), chunk 9 not (the look-back).
  const std::vector<std::int64_t> chunks = {0, 1, 4097, 0, small_max, 2, small_max + 1, 300007, 3, small_max + 4099, 33};
  std::int64_t n = 0;
  for (const std::int64_t c : chunks) n += c;
  if (n > max_test_size()) GTEST_SKIP() << "above LOOKBACK_TEST_MAX_N";
  auto rng = make_rng(404);
  const auto input = random_values<std::uint32_t>(n, rng);
  const std::uint32_t start = 7;
  for (const bool inclusive : {false, true}) {
    auto expected = cpu_scan(input, std::uint32_t{0}, sum{}, inclusive);
    for (auto& x : expected) x += start;
    const std::uint32_t expected_total = start + std::accumulate(input.begin(), input.end(), std::uint32_t{0});
    const cuda_stream stream;
    device_buffer<std::uint32_t> d_carry(chunks.size() + 1, stream);
    d_carry.fill_bytes(poison_byte);
    copy_to_device(d_carry.data(), &start, 1, stream.get());
    LOOKBACK_CUDA_TRY(cudaStreamSynchronize(stream.get()));
    check_every_element(input, expected, inclusive ? "carried inclusive" : "carried exclusive",
                        [&](const std::uint32_t* d_in, std::uint32_t* d_out, cudaStream_t s) {
                          std::int64_t offset = 0;
                          for (std::size_t k = 0; k < chunks.size(); ++k) {
                            const carried<std::uint32_t> carry{d_carry.data() + k, d_carry.data() + k + 1};
                            const auto call = [&](void* d_temp, std::size_t& bytes) {
                              if (inclusive)
                                inclusive_scan(d_temp, bytes, d_in + offset, d_out + offset, carry, sum{}, chunks[k], s);
                              else
                                exclusive_scan(d_temp, bytes, d_in + offset, d_out + offset, carry, sum{}, chunks[k], s);
                            };
                            std::size_t bytes = 0;
                            call(nullptr, bytes);
                            device_buffer<unsigned char> d_temp(bytes, s);
                            call(d_temp.data(), bytes);
                            offset += chunks[k];
                          }
                        });
    std::uint32_t total = 0;
    copy_to_host(&total, d_carry.data() + chunks.size(), 1, stream.get());
    LOOKBACK_CUDA_TRY(cudaStreamSynchronize(stream.get()));
    EXPECT_EQ(total, expected_total) << (inclusive ? "inclusive" : "exclusive") << ": the last chunk's total";
  }
}

TEST_F(scan_api, in_place) {
  // A small array (two kernels) and a larger one (the pipelined scan).
  for (const std::int64_t size : {std::int64_t{300007}, std::int64_t{1234567}}) {
    const std::int64_t n = std::min<std::int64_t>(max_test_size(), size);
    auto rng = make_rng(5 + static_cast<std::uint64_t>(size));
    const io::host_array input = random_array(io::dtype::int32, n, distribution::small, rng);
    const cuda_stream stream;
    auto d_data = to_device(input.bytes, stream);
    auto* d = reinterpret_cast<std::int32_t*>(d_data.data());
    inclusive_scan(d, d, sum{}, n, stream.get());
    const auto got = to_host(d_data);
    const typed::scan_spec spec{io::dtype::int32, op_kind::sum, true, {}};
    if (const auto e = scan_error(spec, input, got.data()))
      FAIL() << "n=" << n << ": element " << e->index << " is " << e->actual;
  }
}

/// Every size from 1 to 2^26 by steps of a quarter, and one either side of each size where a path or
/// its tiles change.
template <class T>
std::vector<std::int64_t> sizes_across_every_switch() {
  using p = policy::scan<T>;
  std::vector<std::int64_t> sizes;
  for (std::int64_t n = 1; n <= (std::int64_t{1} << 26); n += n / 4 + 1) sizes.push_back(n);
  for (const std::int64_t edge : {p::reduce_then_scan_max_bytes / static_cast<std::int64_t>(sizeof(T)),
                                  p::small_max_items, p::lookahead_small_max_items})
    for (const std::int64_t n : {edge - 1, edge, edge + 1}) sizes.push_back(n);
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

template <class T, class Op>
void expect_queries_never_shrink(const T& init, Op op, const char* label) {
  std::size_t before = 0;
  std::int64_t previous = 0;
  for (const std::int64_t n : sizes_across_every_switch<T>()) {
    std::size_t bytes = 0;
    exclusive_scan(nullptr, bytes, static_cast<const T*>(nullptr), static_cast<T*>(nullptr), init, op, n);
    EXPECT_GE(bytes, before) << label << ": " << n << " items need less than " << previous;
    before = bytes;
    previous = n;
  }
}

// Callers size temporary storage once for their largest call and reuse it for smaller ones (the
// streamed scan's last chunk), so no query may answer less for more items. Queries touch no device.
TEST(scan_temporary_storage, never_shrinks_as_items_grow) {
  expect_queries_never_shrink(std::uint8_t{0}, sum{}, "uint8");
  expect_queries_never_shrink(std::uint32_t{0}, sum{}, "uint32");
  expect_queries_never_shrink(std::uint64_t{0}, sum{}, "uint64");
  expect_queries_never_shrink(affine<std::uint64_t>{1, 0}, compose{}, "16-byte affine");
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

TEST_F(scan_api, temporary_storage_at_any_address) {
  // Storage carved from a larger allocation, poisoned first: its parts start at its first 256-byte
  // boundary (detail/temp_layout.cuh), so 8-byte items' 16-byte descriptors stay aligned. Small arrays
  // (two kernels), the pipeline past 4 MiB, and 4- and 8-byte items.
  auto rng = make_rng(11);
  for (const io::dtype type : {io::dtype::uint32, io::dtype::uint64})
    for (const std::int64_t n : {std::int64_t{1000}, std::int64_t{300007}, (std::int64_t{1} << 20) + 1000})
      for (const std::size_t offset : {std::size_t{1}, std::size_t{8}}) {
        if (n > max_test_size()) continue;
        const io::host_array input = random_array(type, n, distribution::small, rng);
        const cuda_stream stream;
        const auto d_in = to_device(input.bytes, stream);
        device_buffer<std::byte> d_out(input.bytes.size(), stream);
        d_out.fill_bytes(poison_byte);
        const auto run = [&](auto zero) {
          using T = decltype(zero);
          const auto* in = reinterpret_cast<const T*>(d_in.data());
          auto* out = reinterpret_cast<T*>(d_out.data());
          std::size_t bytes = 0;
          exclusive_scan(nullptr, bytes, in, out, T(0), sum{}, n, stream.get());
          device_buffer<unsigned char> d_temp(bytes + offset, stream);
          d_temp.fill_bytes(poison_byte);
          exclusive_scan(d_temp.data() + offset, bytes, in, out, T(0), sum{}, n, stream.get());
        };
        if (type == io::dtype::uint32) run(std::uint32_t{});
        else run(std::uint64_t{});
        const auto got = to_host(d_out);
        const typed::scan_spec spec{type, op_kind::sum, false, {}};
        if (const auto e = scan_error(spec, input, got.data()))
          FAIL() << io::dtype_name(type) << " n=" << n << " offset " << offset << ": element " << e->index << " is "
                 << e->actual;
      }
}

TEST_F(scan_api, rejects_bad_arguments) {
  std::size_t bytes = 0;
  int* d = nullptr;
  EXPECT_THROW(exclusive_scan(nullptr, bytes, d, d, 0, sum{}, -1), std::invalid_argument);
  {
    // A carried prefix must be there to read; a total need not be asked for, even of nothing.
    const cuda_stream stream;
    device_buffer<int> d_prefix(1, stream), d_data(10, stream);
    exclusive_scan(nullptr, bytes, d_data.data(), d_data.data(), carried<int>{d_prefix.data(), nullptr}, sum{}, 10,
                   stream.get());
    device_buffer<std::byte> d_temp(bytes, stream);
    EXPECT_THROW(exclusive_scan(d_temp.data(), bytes, d_data.data(), d_data.data(), carried<int>{nullptr, nullptr}, sum{},
                                10, stream.get()),
                 std::invalid_argument);
    // The total written while tiles still read the prefix: one slot for both is refused.
    expect_refused("d_total must not be its d_prefix", [&] {
      exclusive_scan(d_temp.data(), bytes, d_data.data(), d_data.data(), carried<int>{d_prefix.data(), d_prefix.data()},
                     sum{}, 10, stream.get());
    });
    exclusive_scan(d_temp.data(), bytes, d_data.data(), d_data.data(), carried<int>{d_prefix.data(), nullptr}, sum{}, 0,
                   stream.get());
    LOOKBACK_CUDA_TRY(cudaStreamSynchronize(stream.get()));
  }
  exclusive_scan(nullptr, bytes, d, d, 0, sum{}, 1 << 20);
  EXPECT_GT(bytes, 0u);
  std::size_t too_small = bytes - 1;
  const cuda_stream stream;
  device_buffer<int> d_data(std::size_t{1} << 20, stream);
  EXPECT_THROW(exclusive_scan(reinterpret_cast<void*>(256), too_small, d_data.data(), d_data.data(), 0, sum{}, 1 << 20,
                              stream.get()),
               std::invalid_argument);
}

// No gpu_test fixture: the arrays are checked before any CUDA call, so these run without a GPU too.
TEST(scan_arguments, null_arrays_are_refused) {
  untouched_storage storage;
  int* none = nullptr;
  int* somewhere = reinterpret_cast<int*>(storage.get());  // never dereferenced: the call refuses first
  expect_refused("d_in", [&] { exclusive_scan(storage.get(), storage.bytes, none, somewhere, 0, sum{}, 10); });
  expect_refused("d_out", [&] { exclusive_scan(storage.get(), storage.bytes, somewhere, none, 0, sum{}, 10); });
}

// Null arrays are refused only with items to process: with none, nothing is read or written.
TEST_F(scan_api, null_arrays_with_no_items_are_accepted) {
  const cuda_stream stream;
  std::size_t bytes = 0;
  int* none = nullptr;
  exclusive_scan(nullptr, bytes, none, none, 0, sum{}, 0, stream.get());
  device_buffer<std::byte> d_temp(std::max<std::size_t>(bytes, 1), stream);
  exclusive_scan(d_temp.data(), bytes, none, none, 0, sum{}, 0, stream.get());
  std::size_t inclusive_bytes = 0;
  inclusive_scan(nullptr, inclusive_bytes, none, none, sum{}, 0, stream.get());
  device_buffer<std::byte> d_inclusive_temp(std::max<std::size_t>(inclusive_bytes, 1), stream);
  inclusive_scan(d_inclusive_temp.data(), inclusive_bytes, none, none, sum{}, 0, stream.get());
  LOOKBACK_CUDA_TRY(cudaStreamSynchronize(stream.get()));
}

}  // namespace
}  // namespace lookback::test
