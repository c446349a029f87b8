// The sort of any size (lookback::pipelines::sort_*, and the command's typed path over it): budgets
// that force one, two and many buckets, skewed keys that split a bucket again, keys equal on every bit
// copied through, spills into the output, host memory and a file; every key type, pairs of 4- and
// 8-byte values, both directions, bit ranges, NaNs and signed zeros: bit for bit the CPU reference's
// stable order (typed::sort_cpu: a stable sort by the keys' ordered bits, the order test_radix_sort
// holds CUB and the in-memory sort to). More than 2^32 keys: DISABLED_, run in the bundle's huge step.
#include "support/gpu_test.hpp"
#include "support/opaque_io.hpp"
#include "support/random_values.hpp"
#include "support/test_sizes.hpp"
#include "typed/sort_ops.hpp"
#include "typed/stream_ops.hpp"

#include <lookback/pipelines/histogram.cuh>
#include <lookback/pipelines/reduce.cuh>
#include <lookback/pipelines/scan.cuh>
#include <lookback/pipelines/sort.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

namespace lookback::test {
namespace {

class external_sort : public gpu_test {};
class external_sort_large : public gpu_test {};

enum class shape { random, few_distinct, all_equal, sorted, reversed, skewed };

const char* name_of(shape s) {
  switch (s) {
    case shape::random: return "random";
    case shape::few_distinct: return "few distinct";
    case shape::all_equal: return "all equal";
    case shape::sorted: return "sorted";
    case shape::reversed: return "reverse sorted";
    case shape::skewed: return "skewed";
  }
  return "?";
}

/// n keys of `type` shaped as asked; floats also carry NaNs of both signs, both zeros and infinities.
io::host_array keys_of(io::dtype type, std::int64_t n, shape s, std::mt19937_64& rng) {
  // Random bit patterns: every key type, floats of every exponent (NaNs among them).
  const std::size_t w = io::dtype_size(type);
  io::host_array keys{type, {n}, std::vector<std::byte>(static_cast<std::size_t>(n) * w)};
  for (std::size_t i = 0; i < keys.bytes.size(); i += 8) {
    const std::uint64_t bits = rng();
    std::memcpy(keys.bytes.data() + i, &bits, std::min<std::size_t>(8, keys.bytes.size() - i));
  }
  std::byte* b = keys.bytes.data();
  const auto copy_item = [&](std::int64_t to, std::int64_t from) { std::memcpy(b + to * w, b + from * w, w); };
  switch (s) {
    case shape::random: break;
    case shape::few_distinct:
      for (std::int64_t i = 5; i < n; ++i) copy_item(i, static_cast<std::int64_t>(rng() % 5));
      break;
    case shape::all_equal:
      for (std::int64_t i = 1; i < n; ++i) copy_item(i, 0);
      break;
    case shape::skewed:  // nine in ten keys one value: its digit overflows any bucket
      for (std::int64_t i = 1; i < n; ++i)
        if (rng() % 10 != 0) copy_item(i, 0);
      break;
    case shape::sorted:
    case shape::reversed: {
      typed::sort_spec spec{type, 0, s == shape::reversed, 0, typed::key_bits(type)};
      std::vector<std::byte> sorted(keys.bytes.size());
      typed::sort_cpu(spec, b, sorted.data(), nullptr, nullptr, n);
      keys.bytes = sorted;
      break;
    }
  }
  if (io::is_floating(type) && n >= 8 && s != shape::all_equal) {
    for (int k = 0; k < 8; ++k) {
      const std::int64_t i = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(n));
      const double special[] = {std::nan(""), -std::nan(""), 0.0, -0.0, INFINITY, -INFINITY, 0.0, -0.0};
      if (type == io::dtype::float32) {
        const float f = static_cast<float>(special[k]);
        std::memcpy(b + i * w, &f, w);
      } else {
        std::memcpy(b + i * w, &special[k], w);
      }
    }
  }
  return keys;
}

/// Values numbering the items, so a value out of place shows where it came from.
std::vector<std::byte> values_of(int value_bytes, std::int64_t n) {
  std::vector<std::byte> v(static_cast<std::size_t>(n) * static_cast<std::size_t>(value_bytes));
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint64_t x = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull + 1;
    std::memcpy(v.data() + i * value_bytes, &x, static_cast<std::size_t>(value_bytes));
  }
  return v;
}

/// A device budget whose buckets hold about n / buckets items (0: the whole input in-core).
std::size_t device_budget_for(const typed::sort_spec& spec, std::int64_t n, int buckets) {
  if (buckets == 0) return 0;
  const std::size_t item = io::dtype_size(spec.key) + static_cast<std::size_t>(spec.value_bytes);
  const std::size_t per_bucket = static_cast<std::size_t>(std::max<std::int64_t>(8192, n / buckets));
  return 5 * item * per_bucket + (std::size_t{64} << 10);  // beside the sort's own counters
}

struct sort_case {
  typed::sort_spec spec;
  std::int64_t n;
  shape keys;
  int buckets;     // 0: in-core
  bool opaque;     // through staging, the spill in host memory or a file
  std::size_t host_bytes = 0;
};

std::string describe(const sort_case& c) {
  return std::string(io::dtype_name(c.spec.key)) + (c.spec.value_bytes ? " pairs(" + std::to_string(c.spec.value_bytes) + ")" : "") +
         (c.spec.descending ? " descending" : "") + " bits " + std::to_string(c.spec.begin_bit) + ":" +
         std::to_string(c.spec.end_bit) + " n=" + std::to_string(c.n) + " " + name_of(c.keys) + " buckets~" +
         std::to_string(c.buckets) + (c.opaque ? " staged" : "") +
         (c.host_bytes ? " host=" + std::to_string(c.host_bytes) : "");
}

/// Runs the case through the typed path and checks every key and value against sort_cpu.
pipelines::sort_report check_case(const sort_case& c, bool verify = false) {
  SCOPED_TRACE(describe(c));
  std::mt19937_64 rng = make_rng(1500 + static_cast<std::uint64_t>(c.n));
  const io::host_array keys = keys_of(c.spec.key, c.n, c.keys, rng);
  const std::vector<std::byte> values = values_of(c.spec.value_bytes, c.n);
  const std::size_t kw = io::dtype_size(c.spec.key), vw = static_cast<std::size_t>(c.spec.value_bytes);
  std::vector<std::byte> want_keys(keys.bytes.size()), want_values(values.size());
  typed::sort_cpu(c.spec, keys.bytes.data(), want_keys.data(), values.data(), want_values.data(), c.n);

  // 1- and 2-byte keys hold poison_byte's pattern among their values: a second run under another
  // poison shows a slot never written there.
  pipelines::sort_report sorted;
  for (const int poison : poisons_for(kw)) {
    std::vector<std::byte> got_keys(keys.bytes.size(), std::byte(poison)), got_values(values.size(), std::byte(poison));
    pipelines::host_source hk(keys.bytes.data(), c.n, kw), hv(values.data(), c.n, vw ? vw : 4);
    pipelines::host_sink hko(got_keys.data(), kw), hvo(got_values.data(), vw ? vw : 4);
    opaque_source ok(keys.bytes.data(), c.n, kw), ov(values.data(), c.n, vw ? vw : 4);
    opaque_sink oko(got_keys.data(), kw), ovo(got_values.data(), vw ? vw : 4);
    pipelines::source& k = c.opaque ? static_cast<pipelines::source&>(ok) : hk;
    pipelines::source& v = c.opaque ? static_cast<pipelines::source&>(ov) : hv;
    pipelines::sink& ko = c.opaque ? static_cast<pipelines::sink&>(oko) : hko;
    pipelines::sink& vo = c.opaque ? static_cast<pipelines::sink&>(ovo) : hvo;

    typed::stream_request r;
    r.verify = verify;
    r.options.limits.device_bytes = device_budget_for(c.spec, c.n, c.buckets);
    r.options.limits.host_bytes = c.host_bytes;
    const typed::stream_outcome out = typed::sort_stream(c.spec, k, vw ? &v : nullptr, ko, vw ? &vo : nullptr, r,
                                                         std::filesystem::temp_directory_path());
    for (std::int64_t i = 0; i < c.n; ++i) {
      if (std::memcmp(want_keys.data() + i * kw, got_keys.data() + i * kw, kw) != 0) {
        ADD_FAILURE() << "key " << i << ": want " << typed::format_key(c.spec.key, want_keys.data() + i * kw) << ", got "
                      << typed::format_key(c.spec.key, got_keys.data() + i * kw) << " (" << pipelines::describe(out.sorted) << ")";
        break;
      }
    }
    EXPECT_TRUE(want_values == got_values) << "values differ (" << pipelines::describe(out.sorted) << ")";
    if (verify) {
      EXPECT_TRUE(out.checked.has_value());
      if (out.checked) EXPECT_FALSE(out.checked->mismatch.has_value());
    }
    sorted = out.sorted;
  }
  return sorted;
}

const io::dtype key_types[] = {io::dtype::uint8,   io::dtype::uint16, io::dtype::uint32, io::dtype::int32,
                               io::dtype::float32, io::dtype::uint64, io::dtype::int64,  io::dtype::float64};

TEST_F(external_sort, EveryKeyTypeAndDirectionInOneTwoAndManyBucketsMatchesTheReference) {
  const std::int64_t n = std::min<std::int64_t>(max_test_size(), 300007);
  for (io::dtype key : key_types)
    for (bool descending : {false, true})
      for (int value_bytes : {0, 4, 8})
        for (int buckets : {0, 2, 16}) {
          const sort_case c{{key, value_bytes, descending, 0, typed::key_bits(key)}, n, shape::random, buckets, false};
          const pipelines::sort_report r = check_case(c);
          if (n < 100000) continue;
          EXPECT_EQ(r.external, buckets != 0) << describe(c);
          if (buckets != 0 && typed::key_bits(key) > 8) EXPECT_GE(r.buckets, buckets / 2) << describe(c);
        }
}

TEST_F(external_sort, EdgeSizesMatchTheReference) {
  // Empty, one item, around a warp and a 4096-item block, and a prime; keys alone and pairs, with the
  // default budget and with one that asks for buckets.
  for (const std::int64_t n : {0, 1, 31, 32, 33, 4095, 4096, 4097, 65537})
    for (io::dtype key : {io::dtype::uint8, io::dtype::uint32, io::dtype::float64})
      for (int value_bytes : {0, 8})
        for (int buckets : {0, 2})
          check_case({{key, value_bytes, n % 2 == 1, 0, typed::key_bits(key)}, n, shape::random, buckets, false});
}

TEST_F(external_sort, ShapesOfKeysSplitAgainOrCopyThrough) {
  const std::int64_t n = std::min<std::int64_t>(max_test_size(), 200003);
  for (io::dtype key : {io::dtype::uint32, io::dtype::float64, io::dtype::uint16, io::dtype::int64})
    for (shape s : {shape::few_distinct, shape::all_equal, shape::sorted, shape::reversed, shape::skewed})
      for (int value_bytes : {0, 8}) {
        const sort_case c{{key, value_bytes, false, 0, typed::key_bits(key)}, n, s, 16, false};
        const pipelines::sort_report r = check_case(c);
        if (n < 100000) continue;
        if (s == shape::all_equal) EXPECT_EQ(r.copied, 1) << describe(c);
        if (s == shape::skewed) EXPECT_GE(r.passes, 2) << describe(c);
      }
}

TEST_F(external_sort, BitRangesAndDescendingPairsInBuckets) {
  const std::int64_t n = std::min<std::int64_t>(max_test_size(), 150001);
  const std::pair<io::dtype, std::pair<int, int>> ranges[] = {
      {io::dtype::uint32, {4, 20}}, {io::dtype::uint32, {0, 9}},  {io::dtype::float32, {16, 32}},
      {io::dtype::int64, {3, 61}},  {io::dtype::float64, {0, 31}}, {io::dtype::uint16, {2, 15}}};
  for (const auto& [key, bits] : ranges)
    for (bool descending : {false, true})
      check_case({{key, 4, descending, bits.first, bits.second}, n, shape::random, 8, false});
}

TEST_F(external_sort, StagedSourcesAndSinksSpillToHostMemoryOrAFile) {
  const std::int64_t n = std::min<std::int64_t>(max_test_size(), 250007);
  for (std::size_t host : {std::size_t{0}, std::size_t{256} << 10})  // the default, or too little: a spill file
    for (int value_bytes : {0, 4}) {
      const sort_case c{{io::dtype::uint32, value_bytes, true, 0, 32}, n, shape::random, 8, true, host};
      const pipelines::sort_report r = check_case(c);
      if (n >= 100000)
        EXPECT_EQ(r.spill, host == 0 ? pipelines::spill_kind::host : pipelines::spill_kind::file) << describe(c);
    }
  // A skewed bucket split again through a file, and in-core through staging.
  check_case({{io::dtype::int32, 8, false, 0, 32}, n, shape::skewed, 8, true, std::size_t{256} << 10});
  check_case({{io::dtype::float32, 8, false, 0, 32}, n, shape::random, 0, true});
}

TEST_F(external_sort, VerifyComparesEveryBucketWithCub) {
  const std::int64_t n = std::min<std::int64_t>(max_test_size(), 100003);
  const pipelines::sort_report r = check_case({{io::dtype::uint64, 4, false, 0, 64}, n, shape::random, 4, false}, true);
  if (n >= 100000) EXPECT_TRUE(r.external);
}

/// The most device memory the default pool (every device_buffer's) held at once while `run` ran, beyond
/// what it held before.
template <class Run>
std::size_t device_peak_of(Run&& run) {
  int device = 0;
  LOOKBACK_CUDA_TRY(cudaGetDevice(&device));
  cudaMemPool_t pool{};
  LOOKBACK_CUDA_TRY(cudaDeviceGetDefaultMemPool(&pool, device));
  LOOKBACK_CUDA_TRY(cudaDeviceSynchronize());
  std::uint64_t before = 0, zero = 0, high = 0;
  LOOKBACK_CUDA_TRY(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &before));
  LOOKBACK_CUDA_TRY(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero));
  run();
  LOOKBACK_CUDA_TRY(cudaDeviceSynchronize());
  LOOKBACK_CUDA_TRY(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &high));
  return static_cast<std::size_t>(high - std::min(high, before));
}

TEST_F(external_sort, DeviceMemoryStaysWithinTheLimitWithAndWithoutVerify) {
  // CUB's output under --verify is counted per item; held from a chunk's split into the buckets' phase,
  // it sat beside their slots.
  const std::int64_t n = std::min<std::int64_t>(max_test_size(), 400009);
  for (int value_bytes : {0, 8})
    for (bool verify : {false, true}) {
      const sort_case c{{io::dtype::uint64, value_bytes, false, 0, 64}, n, shape::random, 8, false};
      const std::size_t limit = device_budget_for(c.spec, c.n, c.buckets);
      pipelines::sort_report r;
      const std::size_t peak = device_peak_of([&] { r = check_case(c, verify); });
      // The pool's accounting may round each of the few dozen allocations up: 32 KiB of slack, where the
      // buffer held from the split took hundreds of KiB beside the buckets.
      std::printf("device peak %zu of a limit of %zu bytes (%s%s)\n", peak, limit, describe(c).c_str(),
                  verify ? ", verified" : "");
      EXPECT_LE(peak, limit + (std::size_t{32} << 10)) << describe(c) << (verify ? " verified" : "") << ": "
                                                       << pipelines::describe(r);
      if (n >= 100000) EXPECT_TRUE(r.external) << describe(c);
    }
}

TEST_F(external_sort, TheLibraryEntryPointsSortHostArraysLargerThanTheirBudget) {
  const std::int64_t n = std::min<std::int64_t>(max_test_size(), 1 << 20);
  std::mt19937_64 rng = make_rng(1510);
  std::vector<float> keys(static_cast<std::size_t>(n));
  std::vector<std::uint64_t> values(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    keys[i] = static_cast<float>(rng() % 1000) - 500.0f;
    values[i] = i;
  }
  std::vector<float> sorted(keys.size(), std::numeric_limits<float>::quiet_NaN());  // no key's value
  std::vector<std::uint64_t> moved(keys.size(), ~0ull);
  pipelines::host_source k(keys.data(), n, 4), v(values.data(), n, 8);
  pipelines::host_sink ko(sorted.data(), 4), vo(moved.data(), 8);
  pipelines::sort_options o;
  o.limits.device_bytes = std::size_t{2} << 20;  // a bucket of about 50000 pairs
  o.descending = true;
  const pipelines::sort_report r = pipelines::sort_pairs<float, std::uint64_t>(k, v, ko, vo, o);
  if (n >= 100000) EXPECT_TRUE(r.external) << pipelines::describe(r);
  std::vector<std::uint64_t> order(values);
  std::stable_sort(order.begin(), order.end(), [&](std::uint64_t a, std::uint64_t b) { return keys[a] > keys[b]; });
  for (std::size_t i = 0; i < order.size(); ++i) {
    ASSERT_EQ(moved[i], order[i]) << "item " << i;
    ASSERT_EQ(sorted[i], keys[order[i]]) << "item " << i;
  }
}

// An array sorted into itself: the scatter cannot spill into an output that is its own input (it would
// overwrite chunks not yet read), so it spills elsewhere; pairs in place too.
TEST_F(external_sort, AHostArraySortedIntoItselfLargerThanTheBudget) {
  const std::int64_t n = std::min<std::int64_t>(max_test_size(), 1 << 20);
  std::mt19937_64 rng = make_rng(1512);
  std::vector<std::uint32_t> keys(static_cast<std::size_t>(n));
  std::vector<std::uint32_t> values(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    keys[i] = static_cast<std::uint32_t>(rng());
    values[i] = static_cast<std::uint32_t>(i);
  }
  std::vector<std::uint32_t> order(values);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
  const std::vector<std::uint32_t> original(keys);
  pipelines::host_source k(keys.data(), n, 4), v(values.data(), n, 4);
  pipelines::host_sink ko(keys.data(), 4), vo(values.data(), 4);
  pipelines::sort_options o;
  o.limits.device_bytes = std::size_t{2} << 20;
  const pipelines::sort_report r = pipelines::sort_pairs<std::uint32_t, std::uint32_t>(k, v, ko, vo, o);
  if (n >= 100000) EXPECT_TRUE(r.external) << pipelines::describe(r);
  for (std::size_t i = 0; i < order.size(); ++i) {
    ASSERT_EQ(values[i], order[i]) << "item " << i;
    ASSERT_EQ(keys[i], original[order[i]]) << "item " << i;
  }
}

/// Keys that change between the external sort's two reads: spread over every digit when counted, all
/// one digit when scattered, as a file rewritten meanwhile would be.
class changing_source final : public pipelines::source {
 public:
  explicit changing_source(std::int64_t n) : n_(n) {}
  std::int64_t size() const override { return n_; }
  std::size_t item_bytes() const override { return 4; }
  void read(std::int64_t first, std::int64_t count, void* dst) override {
    auto* out = static_cast<std::uint32_t*>(dst);
    for (std::int64_t i = 0; i < count; ++i)
      out[i] = read_ < n_ ? static_cast<std::uint32_t>((first + i) * 2654435761u) : 0u;
    read_ += count;
  }

 private:
  std::int64_t n_;
  std::int64_t read_ = 0;
};

TEST_F(external_sort, KeysChangedBetweenTheTwoReadsStopTheRunBeforeAnOverflowingWrite) {
  const std::int64_t n = std::min<std::int64_t>(max_test_size(), 1 << 20);
  if (n < 200000) GTEST_SKIP() << "needs an external sort of several buckets";
  changing_source k(n);
  std::vector<std::uint32_t> out(static_cast<std::size_t>(n));
  pipelines::host_sink ko(out.data(), 4);
  pipelines::sort_options o;
  o.limits.device_bytes = std::size_t{2} << 20;
  try {
    pipelines::sort_keys<std::uint32_t>(k, ko, o);
    ADD_FAILURE() << "no error";
  } catch (const pipelines::stream_error& e) {
    EXPECT_EQ(e.what_failed(), pipelines::stream_error::kind::device);
    EXPECT_NE(std::string(e.what()).find("receives more items than the histogram counted"), std::string::npos)
        << e.what();
  }
}

// The chunks' device slots are sized by the source's items, the kernels read the type's: a source of
// other items is refused before anything runs (no GPU needed).
TEST(streamed_arguments, sources_of_another_item_size_are_refused) {
  std::vector<float> floats(10);
  pipelines::host_source four(floats.data(), 10, 4);
  std::vector<double> out(10);
  pipelines::host_sink eight(out.data(), 8);
  EXPECT_THROW(pipelines::inclusive_scan<double>(four, eight, sum{}), std::invalid_argument);
  EXPECT_THROW((void)pipelines::reduce(four, sum{}, 0.0), std::invalid_argument);
  std::vector<unsigned long long> counts(4);
  EXPECT_THROW(pipelines::histogram_even<double>(four, counts.data(), 4, 0.0, 1.0), std::invalid_argument);
  std::vector<std::uint32_t> keys(10);
  pipelines::host_source k(keys.data(), 10, 4);
  pipelines::host_sink ko(keys.data(), 4), vo(out.data(), 8);
  EXPECT_THROW((pipelines::sort_pairs<std::uint32_t, std::uint64_t>(k, four, ko, vo)), std::invalid_argument);
}

TEST_F(external_sort, ABudgetTooSmallForOneBucketIsRefusedNamingWhatItNeeds) {
  std::vector<std::uint32_t> keys(100000, 1), out(keys.size());
  keys[7] = 3;
  pipelines::host_source k(keys.data(), static_cast<std::int64_t>(keys.size()), 4);
  pipelines::host_sink ko(out.data(), 4);
  pipelines::sort_options o;
  o.limits.device_bytes = 4096;
  try {
    pipelines::sort_keys<std::uint32_t>(k, ko, o);
    ADD_FAILURE() << "no error";
  } catch (const pipelines::stream_error& e) {
    EXPECT_EQ(e.what_failed(), pipelines::stream_error::kind::budget);
    EXPECT_NE(std::string(e.what()).find("device memory"), std::string::npos) << e.what();
  }
}

TEST_F(external_sort_large, DISABLED_more_than_2_pow_32_uint16_keys) {
  const std::int64_t n = (std::int64_t{1} << 32) + 1000;
  std::mt19937_64 rng = make_rng(1520);
  constexpr std::uint16_t poison = 0xABAB;
  const auto drawn = uint16_keys_except(n, poison, rng);
  std::vector<std::uint16_t> sorted(drawn.keys.size(), poison);
  pipelines::host_source in(drawn.keys.data(), n, 2);
  pipelines::host_sink out(sorted.data(), 2);
  const pipelines::sort_report r = pipelines::sort_keys<std::uint16_t>(in, out);
  EXPECT_TRUE(r.external) << pipelines::describe(r);
  const std::int64_t bad = first_unsorted_item(sorted.data(), drawn.counts);
  EXPECT_EQ(bad, -1) << "the first key out of place";
  std::cout << "sorted " << n << " uint16 keys: " << pipelines::describe(r) << "\n";
}

}  // namespace
}  // namespace lookback::test
