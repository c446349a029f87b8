// The kernel ladders (lookback/primitives/ladder/): every rung of the reduce and scan ladders for every
// dtype against the CPU reference, at sizes around warps, blocks, tiles and levels of the hierarchy,
// outputs poisoned and every element checked; then the storage convention and a race stress test of
// the chained single-pass scan.
#include "support/gpu_test.hpp"
#include "typed/reference.hpp"
#include "support/test_sizes.hpp"
#include "support/typed_gpu.hpp"
#include "typed/ladder_ops.hpp"
#include "typed/visit.hpp"

#include <lookback/primitives/ladder/reduce_ladder.cuh>
#include <lookback/primitives/ladder/scan_ladder.cuh>
#include <lookback/primitives/policy/ladder_policy.cuh>

#include <cstring>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace lookback::test {
namespace {

using typed::op_kind;

const io::dtype all_types[] = {io::dtype::int32, io::dtype::uint32, io::dtype::int64,
                               io::dtype::uint64, io::dtype::float32, io::dtype::float64};

constexpr int block = policy::ladder::threads;                                           // rungs 1-3 of both
constexpr int coarse_tile = policy::ladder::threads * policy::ladder::scan_items_per_thread;  // scan rungs 4-6

/// Around a warp, one and two blocks (256, 512: also the tiles of reduce rungs 4-7 and of Brent-Kung),
/// the coarsened tile (2048), a second and third level of the hierarchies (block^2 = 65536,
/// (2*block)^2, coarse_tile^2), a prime and 2^24; capped by LOOKBACK_TEST_MAX_N.
std::vector<std::int64_t> ladder_sizes(typed::ladder_family family) {
  std::vector<std::int64_t> sizes{0,    1,     31,    32,    33,    255,   256,   257,   511,     512,
                                  513,  1000,  2047,  2048,  2049,  65535, 65536, 65537, 1000003, std::int64_t{1} << 24};
  if (family == typed::ladder_family::reduce) {
    sizes.push_back(2 * block * 2 * block + 1);  // three passes of the two-items-per-thread rungs
  } else {
    sizes.push_back(2 * block * 2 * block + 1);                                    // Brent-Kung: three levels
    sizes.push_back(std::int64_t{coarse_tile} * coarse_tile + 1);                  // coarsened: three levels
    sizes.push_back(std::int64_t{coarse_tile} * 3 + 7);                           // not a power of two
  }
  std::vector<std::int64_t> kept;
  for (const std::int64_t n : sizes)
    if (n <= max_test_size()) kept.push_back(n);
  return kept;
}

std::vector<std::byte> gpu_ladder(typed::ladder_family family, int variant, const io::host_array& input) {
  const std::int64_t n = input.size();
  const std::size_t output_bytes = family == typed::ladder_family::reduce ? io::dtype_size(input.type) : input.bytes.size();
  return run_typed(input, output_bytes, [&](void* t, std::size_t& b, const void* i, void* o, cudaStream_t s) {
    if (family == typed::ladder_family::reduce)
      typed::reduce_ladder(variant, input.type, t, b, i, o, n, s);
    else
      typed::scan_ladder(variant, input.type, t, b, i, o, n, s);
  });
}

std::string describe(typed::ladder_family family, int variant, io::dtype type, std::int64_t n) {
  return std::string(typed::ladder_family_name(family)) + " rung \"" + typed::ladder_names(family).at(variant - 1) +
         "\" " + std::string(io::dtype_name(type)) + " n=" + std::to_string(n);
}

void check_rung(typed::ladder_family family, int variant, const io::host_array& input) {
  const auto got = gpu_ladder(family, variant, input);
  const std::string what = describe(family, variant, input.type, input.size());
  if (family == typed::ladder_family::reduce) {
    if (const auto e = reduce_error(op_kind::sum, input, got.data()))
      ADD_FAILURE() << what << ": sum is " << e->actual << ", reference " << e->expected;
  } else {
    const typed::scan_spec spec{input.type, op_kind::sum, true, typed::identity(input.type, op_kind::sum)};
    if (const auto e = scan_error(spec, input, got.data()))
      ADD_FAILURE() << what << ": element " << e->index << " is " << e->actual << ", reference " << e->expected;
  }
}

using rung_param = std::tuple<typed::ladder_family, int, io::dtype>;

class ladder_rung : public gpu_test, public ::testing::WithParamInterface<rung_param> {};

TEST_P(ladder_rung, matches_cpu_reference_around_boundaries) {
  const auto [family, variant, type] = GetParam();
  for (const std::int64_t n : ladder_sizes(family)) {
    auto rng = make_rng(static_cast<std::uint64_t>(n) * 1009 + static_cast<std::uint64_t>(variant) * 31 +
                        static_cast<std::uint64_t>(type) * 7 + static_cast<std::uint64_t>(family));
    check_rung(family, variant, random_array(type, n, distribution::small, rng));
  }
}

// Integers over their whole range wrap, which every summation order does alike; floats in [-1, 1)
// cancel, which the allowance (from the sum of magnitudes) covers.
TEST_P(ladder_rung, full_range_and_constant_inputs) {
  const auto [family, variant, type] = GetParam();
  for (const std::int64_t n : {std::int64_t{257}, std::int64_t{100003}}) {
    if (n > max_test_size()) continue;
    auto rng = make_rng(static_cast<std::uint64_t>(n) * 13 + static_cast<std::uint64_t>(variant) * 5 +
                        static_cast<std::uint64_t>(type) + 1000 * static_cast<std::uint64_t>(family));
    check_rung(family, variant, random_array(type, n, distribution::signed_, rng));
    check_rung(family, variant, random_array(type, n, distribution::constant, rng));
  }
}

// The sign of zero, as CUB keeps it: an inclusive sum whose first items are -0.0 begins with -0.0s, at
// sizes that fill the ladder's blocks and tiles exactly (no padding joins the sums) and at sizes that
// do not; a reduction of -0.0s adds CUB's initial value +0.0. The reference compares the sign.
TEST_P(ladder_rung, keeps_the_sign_of_zero) {
  const auto [family, variant, type] = GetParam();
  for (const std::int64_t n : {std::int64_t{256}, std::int64_t{257}, std::int64_t{2048}, std::int64_t{100003}}) {
    if (n > max_test_size()) continue;
    auto rng = make_rng(static_cast<std::uint64_t>(n) * 17 + static_cast<std::uint64_t>(variant) * 3 +
                        static_cast<std::uint64_t>(type) + 2000 * static_cast<std::uint64_t>(family));
    check_rung(family, variant, random_array(type, n, distribution::negative_zeros, rng));
    io::host_array zeros = random_array(type, n, distribution::negative_zeros, rng);
    typed::visit_numeric(type, [&](auto zero) {
      using T = decltype(zero);
      for (std::int64_t i = 0; i < n; ++i) zeros.as<T>()[i] = -T(0);  // integers: all 0
    });
    check_rung(family, variant, zeros);
  }
}

// The storage convention: a query with a null pointer stores a size above zero (so that the real call
// can never read as a query), also for n == 0, and storage smaller than asked for is refused.
TEST_P(ladder_rung, temporary_storage_convention) {
  const auto [family, variant, type] = GetParam();
  const auto run = [&, family = family, variant = variant, type = type](void* d_temp, std::size_t& bytes,
                                                                         std::int64_t n) {
    if (family == typed::ladder_family::reduce)
      typed::reduce_ladder(variant, type, d_temp, bytes, nullptr, nullptr, n, nullptr);
    else
      typed::scan_ladder(variant, type, d_temp, bytes, nullptr, nullptr, n, nullptr);
  };
  for (const std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{1} << 20}) {
    std::size_t bytes = 0;
    run(nullptr, bytes, n);
    EXPECT_GT(bytes, 0u) << describe(family, variant, type, n);
  }
  // Only the ladder's own drivers: the production rungs check their storage as lookback:: documents.
  if (variant == static_cast<int>(typed::ladder_names(family).size())) return;
  std::size_t bytes = 0;
  run(nullptr, bytes, std::int64_t{1} << 20);
  std::size_t too_few = bytes - 1;
  int dummy = 0;
  EXPECT_THROW(run(&dummy, too_few, std::int64_t{1} << 20), std::invalid_argument) << describe(family, variant, type, 1 << 20);
}

std::vector<rung_param> all_rungs() {
  std::vector<rung_param> params;
  for (const typed::ladder_family family : {typed::ladder_family::reduce, typed::ladder_family::scan}) {
    const int rungs = static_cast<int>(typed::ladder_names(family).size());
    for (int variant = 1; variant <= rungs; ++variant)
      for (const io::dtype type : all_types) params.emplace_back(family, variant, type);
  }
  return params;
}

INSTANTIATE_TEST_SUITE_P(all, ladder_rung, ::testing::ValuesIn(all_rungs()),
                         [](const ::testing::TestParamInfo<rung_param>& info) {
                           return std::string(typed::ladder_family_name(std::get<0>(info.param))) + "_rung" +
                                  std::to_string(std::get<1>(info.param)) + "_" +
                                  std::string(io::dtype_name(std::get<2>(info.param)));
                         });

// The chained scan's hand-off (flag after value, fences on both sides) fails, when it fails, rarely and
// differently from run to run: repeat one scan and check every run exactly, for 4- and 8-byte values.
class ladder_domino : public gpu_test {};

TEST_F(ladder_domino, stress_repeated_runs_are_exact) {
  const int domino = static_cast<int>(ladder::scan_variant::single_pass_domino);
  for (const io::dtype type : {io::dtype::uint32, io::dtype::int64}) {
    const std::int64_t n = std::min<std::int64_t>(max_test_size(), (std::int64_t{1} << 22) + 3);
    auto rng = make_rng(4242 + static_cast<int>(type));
    const io::host_array input = random_array(type, n, distribution::small, rng);
    const typed::scan_spec spec{type, op_kind::sum, true, typed::identity(type, op_kind::sum)};
    std::vector<std::byte> expected(input.bytes.size());
    typed::scan_cpu(spec, input.bytes.data(), expected.data(), n);

    expect_repeated_runs_exact(input, expected, n > 100000 ? 100 : 20,
                               [&](void* t, std::size_t& b, const void* in, void* out, cudaStream_t s) {
                                 typed::scan_ladder(domino, type, t, b, in, out, n, s);
                               });
  }
}

// The template entry points themselves, in place (the scans allow d_in == d_out).
class ladder_api : public gpu_test {};

TEST_F(ladder_api, scans_in_place) {
  const std::int64_t n = std::min<std::int64_t>(max_test_size(), 300007);
  auto rng = make_rng(77);
  const io::host_array input = random_array(io::dtype::int32, n, distribution::small, rng);
  const typed::scan_spec spec{io::dtype::int32, op_kind::sum, true, typed::identity(io::dtype::int32, op_kind::sum)};
  for (const ladder::scan_variant v : ladder::scan_variants) {
    const cuda_stream stream;
    auto d_data = to_device(input.bytes, stream);
    auto* d = reinterpret_cast<std::int32_t*>(d_data.data());
    std::size_t bytes = 0;
    ladder::inclusive_scan_sum(v, d, n, d, nullptr, bytes, stream.get());
    device_buffer<std::byte> d_temp(bytes, stream);
    ladder::inclusive_scan_sum(v, d, n, d, d_temp.data(), bytes, stream.get());
    const auto got = to_host(d_data);
    if (const auto e = scan_error(spec, input, got.data()))
      ADD_FAILURE() << ladder::name(v) << " in place: element " << e->index << " is " << e->actual << ", reference "
                    << e->expected;
  }
}

// Names: one per rung, numbered in order, and the rows end with CUB. Needs no GPU.
TEST(ladder_names, numbered_in_order_then_cub) {
  for (const typed::ladder_family family : {typed::ladder_family::reduce, typed::ladder_family::scan}) {
    const auto names = typed::ladder_names(family);
    EXPECT_EQ(names.size(), family == typed::ladder_family::reduce ? 10u : 7u);
    for (std::size_t i = 0; i < names.size(); ++i)
      EXPECT_EQ(names[i].rfind(std::to_string(i + 1) + " ", 0), 0u) << names[i];
    const auto rows = typed::ladder_rows(family);
    ASSERT_EQ(rows.size(), names.size() + 1);
    EXPECT_TRUE(rows.back().cub);
    EXPECT_EQ(rows.back().name.rfind("CUB", 0), 0u);
  }
  EXPECT_TRUE(typed::parse_ladder_family("reduce") == typed::ladder_family::reduce);
  EXPECT_TRUE(typed::parse_ladder_family("scan") == typed::ladder_family::scan);
  EXPECT_FALSE(typed::parse_ladder_family("sort").has_value());
}

}  // namespace
}  // namespace lookback::test
