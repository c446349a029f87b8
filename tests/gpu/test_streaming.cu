// Streaming (lookback::pipelines and the commands' typed path over it): every algorithm cut into 1, 2,
// 3 and many chunks, chunk edges inside tiles and on them, against the CPU reference and the one-chunk
// run, bit for bit (float sums within the rounding allowance); pinned and pageable sources; budgets
// that force chunks; --verify on every chunk; the deterministic scan and reduction in chunks of whole
// windows, bit for bit one run's and verified exactly; the cases past 2^31 and 2^32 items (DISABLED_, run in
// the bundle's huge step).
#include "support/gpu_test.hpp"
#include "support/opaque_io.hpp"
#include "support/test_sizes.hpp"
#include "typed/compare.hpp"
#include "typed/reference.hpp"
#include "typed/stream_ops.hpp"

#include <lookback/pipelines/histogram.cuh>
#include <lookback/pipelines/reduce.cuh>
#include <lookback/pipelines/scan.cuh>
#include <lookback/pipelines/select.cuh>
#include <lookback/primitives/deterministic_scan.cuh>
#include <lookback/primitives/device_buffer.cuh>
#include <lookback/primitives/policy/scan_policy.cuh>
#include <lookback/primitives/stream.cuh>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

namespace lookback::test {
namespace {

using typed::op_kind;

constexpr std::int64_t scan_tile = policy::scan<std::uint32_t>::small::tile_items;

class streaming : public gpu_test {};

struct above_half {
  __host__ __device__ bool operator()(double v) const { return v > 0.5; }
};
struct is_nonzero {
  __host__ __device__ bool operator()(std::uint32_t v) const { return v != 0; }
};
class streaming_large : public gpu_test {};

/// Options that cut n items into chunks of `chunk` (any size, even one item).
pipelines::stream_options chunks_of(std::int64_t chunk) {
  pipelines::stream_options o;
  o.plan.min_chunk_items = 1;
  o.plan.max_chunk_items = std::max<std::int64_t>(chunk, 1);
  return o;
}

/// Chunk sizes for n items: one chunk, two, three, many, and edges on and beside a tile.
std::vector<std::int64_t> chunk_sizes(std::int64_t n) {
  std::vector<std::int64_t> sizes{n, (n + 1) / 2, (n + 2) / 3, scan_tile - 1, scan_tile, scan_tile + 1, 1000, 7};
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  sizes.erase(std::remove_if(sizes.begin(), sizes.end(), [&](std::int64_t c) { return c < 1 || (n / c) > 5000; }),
              sizes.end());
  return sizes;
}

std::vector<std::int64_t> stream_test_sizes() {
  std::vector<std::int64_t> sizes;
  for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{31}, std::int64_t{32}, std::int64_t{33},
                         scan_tile - 1, scan_tile, scan_tile + 1, 3 * scan_tile + 5, std::int64_t{100003}, (std::int64_t{1} << 20) + 7})
    if (n <= max_test_size()) sizes.push_back(n);
  return sizes;
}

std::string where(const std::string& what, io::dtype type, std::int64_t n, std::int64_t chunk) {
  return what + " " + std::string(io::dtype_name(type)) + " n=" + std::to_string(n) + " chunk=" + std::to_string(chunk);
}

const io::dtype numeric_types[] = {io::dtype::int32, io::dtype::uint32, io::dtype::int64,
                                   io::dtype::uint64, io::dtype::float32, io::dtype::float64};

// A streamed float sum carries -0.0 into its first chunk, not +0.0, so a leading -0.0 keeps its sign:
// bit for bit with the CPU backend at every chunk size.
TEST_F(streaming, FloatSumsKeepTheSignsOfZeroAcrossChunks) {
  std::mt19937_64 rng = make_rng(1409);
  for (io::dtype type : {io::dtype::float32, io::dtype::float64})
    for (bool inclusive : {false, true})
      for (std::int64_t n : stream_test_sizes()) {
        if (n == 0) continue;
        const io::host_array input = random_array(type, n, distribution::negative_zeros, rng);
        const typed::scan_spec spec{type, op_kind::sum, inclusive, *typed::parse_scalar(type, "-0.0")};
        const std::size_t width = io::dtype_size(type);
        std::vector<std::byte> cpu(input.bytes.size());
        typed::scan_cpu(spec, input.bytes.data(), cpu.data(), n);
        for (std::int64_t chunk : {std::int64_t{1}, scan_tile + 1, n}) {
          if (chunk > n || (n > 20000 && chunk == 1)) continue;
          pipelines::host_source in(input.bytes.data(), n, width);
          std::vector<std::byte> gpu(input.bytes.size(), std::byte{poison_byte});
          pipelines::host_sink out(gpu.data(), width);
          typed::stream_request r;
          r.options = chunks_of(chunk);
          typed::scan_stream(spec, in, out, r);
          EXPECT_TRUE(gpu == cpu) << where(inclusive ? "inclusive" : "exclusive from -0.0", type, n, chunk);
        }
      }
}

TEST_F(streaming, ScanEveryDtypeOperatorAndModeInChunksMatchesTheReference) {
  std::mt19937_64 rng = make_rng(1401);
  for (io::dtype type : numeric_types)
    for (op_kind op : {op_kind::sum, op_kind::min, op_kind::max})
      for (bool inclusive : {false, true})
        for (std::int64_t n : stream_test_sizes()) {
          const io::host_array input = random_array(type, n, distribution::signed_, rng);
          typed::scan_spec spec{type, op, inclusive, typed::identity(type, op)};
          if (!inclusive && op == op_kind::sum) spec.init = *typed::parse_scalar(type, "3");
          const std::size_t width = io::dtype_size(type);
          std::vector<std::byte> cpu_whole(input.bytes.size());
          typed::scan_cpu(spec, input.bytes.data(), cpu_whole.data(), n);
          for (std::int64_t chunk : chunk_sizes(n)) {
            // The larger sizes take one chunk, two, and chunks of a tile and one item.
            if (n > 20000 && chunk != n && chunk != (n + 1) / 2 && chunk != scan_tile + 1) continue;
            pipelines::host_source in(input.bytes.data(), n, width);
            std::vector<std::byte> gpu(input.bytes.size(), std::byte(tolerance_poison(io::is_floating(type))));
            pipelines::host_sink out(gpu.data(), width);
            typed::stream_request r;
            r.options = chunks_of(chunk);
            const auto outcome = typed::scan_stream(spec, in, out, r);
            EXPECT_EQ(outcome.plan.chunks, n == 0 ? 0 : (n + chunk - 1) / chunk);
            if (const auto e = typed::scan_error(spec, input, gpu.data()))
              ADD_FAILURE() << where("scan", type, n, chunk) << (inclusive ? " inclusive " : " exclusive ")
                            << typed::op_name(op) << ": element " << e->index << " is " << e->actual << ", reference "
                            << e->expected;
            // The CPU backend in the same chunks gives the sequential result bit for bit.
            std::vector<std::byte> cpu(input.bytes.size(), std::byte{poison_byte});
            pipelines::host_sink cpu_out(cpu.data(), width);
            pipelines::host_source cpu_in(input.bytes.data(), n, width);
            typed::scan_stream_cpu(spec, cpu_in, cpu_out, chunks_of(chunk));
            EXPECT_EQ(cpu, cpu_whole) << where("cpu scan", type, n, chunk);
          }
        }
}

// Sources and sinks that are not host memory, as a command's files are: every chunk goes through the
// reader thread's pinned staging and the writer's, each staging slot reused chunk after chunk, and
// compaction appends each chunk's kept items at its offset (keeping none, some and all).
TEST_F(streaming, StagedSourcesAndSinksScanAndCompactInManyChunks) {
  const std::int64_t n = std::min<std::int64_t>(max_test_size(), 300007);
  std::mt19937_64 rng = make_rng(1403);
  std::vector<std::uint32_t> some(static_cast<std::size_t>(n)), none(some.size(), 0u), all(some.size());
  for (std::size_t i = 0; i < some.size(); ++i) {
    some[i] = static_cast<std::uint32_t>(rng() % 3);
    all[i] = some[i] + 1;
  }
  for (const std::int64_t chunk : {n, (n + 1) / 2, scan_tile + 1, std::int64_t{1000}}) {
    for (const std::vector<std::uint32_t>* in : {&some, &none, &all}) {
      const std::string what = "chunk=" + std::to_string(chunk) + (in == &some ? " some" : in == &none ? " none" : " all");
      std::vector<std::uint32_t> want_scan(in->size()), want_kept;
      std::uint32_t running = 0;
      for (std::size_t i = 0; i < in->size(); ++i) {
        running += (*in)[i];
        want_scan[i] = running;
        if ((*in)[i] != 0) want_kept.push_back((*in)[i]);
      }
      std::vector<std::uint32_t> got(in->size(), 0xABABABABu);
      opaque_source src(in->data(), n, 4);
      opaque_sink scanned(got.data(), 4);
      pipelines::inclusive_scan<std::uint32_t>(src, scanned, sum{}, chunks_of(chunk));
      ASSERT_TRUE(got == want_scan) << "scan " << what;
      std::fill(got.begin(), got.end(), 0xABABABABu);
      opaque_sink kept(got.data(), 4);
      const std::int64_t count = pipelines::select_if<std::uint32_t>(src, kept, is_nonzero{}, chunks_of(chunk));
      ASSERT_EQ(count, static_cast<std::int64_t>(want_kept.size())) << what;
      ASSERT_TRUE(std::equal(want_kept.begin(), want_kept.end(), got.begin())) << "select_if " << what;
      ASSERT_TRUE(std::all_of(got.begin() + count, got.end(), [](std::uint32_t v) { return v == 0xABABABABu; }))
          << "written past the kept items, " << what;
    }
  }
}

TEST_F(streaming, ReduceHistogramAndCompactionInChunksMatchTheReference) {
  std::mt19937_64 rng = make_rng(1402);
  for (std::int64_t n : stream_test_sizes())
    for (std::int64_t chunk : chunk_sizes(n)) {
      for (io::dtype type : numeric_types)
        for (op_kind op : {op_kind::sum, op_kind::min, op_kind::max}) {
          const io::host_array input = random_array(type, n, distribution::signed_, rng);
          pipelines::host_source in(input.bytes.data(), n, io::dtype_size(type));
          // All poisoned, so that a reduction that never writes its result shows and the bytes past a
          // 4-byte type's agree (the GPU's result is checked within a tolerance).
          std::array<std::byte, 8> got{}, cpu{}, whole{};
          got.fill(std::byte(tolerance_poison(io::is_floating(type))));
          cpu.fill(std::byte{poison_byte});
          whole.fill(std::byte{poison_byte});
          typed::stream_request r;
          r.options = chunks_of(chunk);
          typed::reduce_stream(type, op, in, got.data(), r);
          if (const auto e = typed::reduce_error(op, input, got.data()))
            ADD_FAILURE() << where("reduce", type, n, chunk) << " " << typed::op_name(op) << ": " << e->actual
                          << ", reference " << e->expected;
          typed::reduce_stream_cpu(type, op, in, cpu.data(), chunks_of(chunk));
          typed::reduce_cpu(type, op, input.bytes.data(), whole.data(), n);
          EXPECT_EQ(cpu, whole) << where("cpu reduce", type, n, chunk);
        }

      // Histogram: uint32 samples, 1000 bins over a range that drops some.
      const io::host_array samples = random_array(io::dtype::uint32, n, distribution::small, rng);
      typed::histogram_spec hs{io::dtype::uint32, io::dtype::uint64, 1000, 10, 900};
      std::vector<std::uint64_t> counts(1000, 7), expected(1000), cpu_counts(1000);
      pipelines::host_source sample_source(samples.bytes.data(), n, 4);
      typed::stream_request r;
      r.options = chunks_of(chunk);
      r.verify = true;
      const auto h = typed::histogram_stream(hs, sample_source, counts.data(), r);
      ASSERT_TRUE(h.checked.has_value());
      EXPECT_FALSE(h.checked->mismatch.has_value()) << where("histogram verify", io::dtype::uint32, n, chunk);
      typed::histogram_even_cpu(hs, samples.bytes.data(), n, expected.data());
      EXPECT_EQ(counts, expected) << where("histogram", io::dtype::uint32, n, chunk);
      typed::histogram_stream_cpu(hs, sample_source, cpu_counts.data(), chunks_of(chunk));
      EXPECT_EQ(cpu_counts, expected) << where("cpu histogram", io::dtype::uint32, n, chunk);

      // Compaction keeping none, about half and all, by predicate and by flags, with --verify's checks.
      const io::host_array values = random_array(io::dtype::float32, n, distribution::signed_, rng);
      for (const char* predicate : {"gt:2", "gt:0", "le:1"}) {
        typed::select_spec spec{io::dtype::float32, false, typed::compare_kind::nonzero, {}};
        ASSERT_FALSE(typed::parse_predicate(io::dtype::float32, predicate, spec).has_value());
        // Both poisoned and compared whole: past the kept items nothing may be written.
        std::vector<std::byte> want(values.bytes.size(), std::byte{poison_byte}), got(want);
        const std::int64_t kept = typed::select_cpu(spec, values.bytes.data(), nullptr, want.data(), n);
        pipelines::host_source vin(values.bytes.data(), n, 4);
        pipelines::host_sink out(got.data(), 4);
        const auto s = typed::select_stream(spec, vin, nullptr, out, r);
        EXPECT_EQ(s.kept, kept) << where(std::string("compact ") + predicate, io::dtype::float32, n, chunk);
        ASSERT_TRUE(s.checked.has_value());
        EXPECT_FALSE(s.checked->mismatch.has_value());
        EXPECT_TRUE(want == got) << where(std::string("compact ") + predicate, io::dtype::float32, n, chunk);
      }
      std::vector<std::uint8_t> flags(static_cast<std::size_t>(n));
      for (auto& f : flags) f = static_cast<std::uint8_t>(rng() % 2);
      typed::select_spec by_flags{io::dtype::float32, true, typed::compare_kind::nonzero, {}};
      std::vector<std::byte> want(values.bytes.size(), std::byte{poison_byte}), got(want), cpu(want);
      const std::int64_t kept = typed::select_cpu(by_flags, values.bytes.data(), flags.data(), want.data(), n);
      pipelines::host_source vin(values.bytes.data(), n, 4), fin(flags.data(), n, 1);
      pipelines::host_sink out(got.data(), 4), cpu_out(cpu.data(), 4);
      EXPECT_EQ(typed::select_stream(by_flags, vin, &fin, out, r).kept, kept);
      EXPECT_TRUE(want == got) << where("flags", io::dtype::float32, n, chunk);
      EXPECT_EQ(typed::select_stream_cpu(by_flags, vin, &fin, cpu_out, chunks_of(chunk)).kept, kept);
      EXPECT_TRUE(want == cpu) << where("cpu flags", io::dtype::float32, n, chunk);
    }
}

TEST_F(streaming, VerifiedScanChecksEveryChunkFromItsCarriedValue) {
  std::mt19937_64 rng = make_rng(1403);
  const std::int64_t n = std::min<std::int64_t>(max_test_size(), 200003);
  for (io::dtype type : {io::dtype::int32, io::dtype::float64})
    for (bool inclusive : {false, true}) {
      const io::host_array input = random_array(type, n, distribution::small, rng);
      typed::scan_spec spec{type, op_kind::sum, inclusive, typed::identity(type, op_kind::sum)};
      std::vector<std::byte> gpu(input.bytes.size(), std::byte(tolerance_poison(io::is_floating(type))));
      pipelines::host_source in(input.bytes.data(), n, io::dtype_size(type));
      pipelines::host_sink out(gpu.data(), io::dtype_size(type));
      typed::stream_request r;
      r.options = chunks_of(n / 3 + 1);
      r.verify = true;
      const auto outcome = typed::scan_stream(spec, in, out, r);
      EXPECT_EQ(outcome.plan.chunks, 3);
      ASSERT_TRUE(outcome.checked.has_value());
      EXPECT_FALSE(outcome.checked->mismatch.has_value()) << outcome.checked->mismatch->index;
      EXPECT_GT(outcome.checked->cub_ms, 0.0f);
      EXPECT_FALSE(typed::scan_error(spec, input, gpu.data()).has_value());
    }
}

TEST_F(streaming, DeterministicScanAndReduceInChunksGiveOneRunsBitsAndVerifyExactly) {
  std::mt19937_64 rng = make_rng(1406);
  constexpr std::int64_t window = policy::deterministic_granule::window_items;
  const std::int64_t n = std::min<std::int64_t>(max_test_size(), 3 * window + 777);
  for (io::dtype type : {io::dtype::float32, io::dtype::float64, io::dtype::int32})
    for (op_kind op : {op_kind::sum, op_kind::min})
      for (bool inclusive : {false, true}) {
        const io::host_array input = random_array(type, n, distribution::signed_, rng);
        typed::scan_spec spec{type, op, inclusive, typed::identity(type, op)};
        spec.deterministic = true;
        if (!inclusive && op == op_kind::sum) spec.init = *typed::parse_scalar(type, "3");
        const std::size_t width = io::dtype_size(type);
        std::vector<std::byte> whole(input.bytes.size(), std::byte{poison_byte});
        pipelines::host_source whole_in(input.bytes.data(), n, width);
        pipelines::host_sink whole_out(whole.data(), width);
        typed::scan_stream_cpu(spec, whole_in, whole_out, {});
        std::array<std::byte, 8> whole_total{};
        whole_total.fill(std::byte{poison_byte});  // as `total` is: the bytes past a 4-byte type's agree
        typed::reduce_stream_cpu(type, op, whole_in, whole_total.data(), {}, true);
        // Chunks asked at one item past a window are cut back to whole windows.
        for (std::int64_t chunk : {n, window + 1, 2 * window}) {
          const std::string at = where(std::string("deterministic ") + (inclusive ? "inclusive " : "exclusive ") +
                                           std::string(typed::op_name(op)),
                                       type, n, chunk);
          typed::stream_request r;
          r.options = chunks_of(chunk);
          r.verify = true;
          std::vector<std::byte> gpu(input.bytes.size(), std::byte{poison_byte});
          pipelines::host_source in(input.bytes.data(), n, width);
          pipelines::host_sink out(gpu.data(), width);
          const auto scanned = typed::scan_stream(spec, in, out, r);
          EXPECT_EQ(scanned.plan.chunk_items % window == 0 || scanned.plan.chunks == 1, true) << at;
          ASSERT_TRUE(scanned.checked.has_value());
          EXPECT_TRUE(scanned.checked->exact);
          EXPECT_FALSE(scanned.checked->mismatch.has_value()) << at;
          EXPECT_EQ(gpu, whole) << at;
          std::vector<std::byte> cpu(input.bytes.size(), std::byte{poison_byte});
          pipelines::host_sink cpu_out(cpu.data(), width);
          typed::scan_stream_cpu(spec, in, cpu_out, chunks_of(chunk));
          EXPECT_EQ(cpu, whole) << "cpu " << at;
          std::array<std::byte, 8> total{};
          total.fill(std::byte{poison_byte});
          const auto reduced = typed::reduce_stream(type, op, in, total.data(), r, true);
          ASSERT_TRUE(reduced.checked.has_value());
          EXPECT_FALSE(reduced.checked->mismatch.has_value()) << "reduce " << at;
          EXPECT_EQ(total, whole_total) << "reduce " << at;
        }
      }
}

TEST_F(streaming, TheDeterministicPipelinesEqualOneLibraryRun) {
  constexpr std::int64_t window = policy::deterministic_granule::window_items;
  const std::int64_t n = std::min<std::int64_t>(max_test_size(), 5 * window + 3);
  std::mt19937_64 rng = make_rng(1407);
  std::vector<float> input(static_cast<std::size_t>(n));
  std::uniform_real_distribution<float> any(-1.0f, 1.0f);
  for (auto& x : input) x = any(rng) * static_cast<float>(1 << (rng() % 20));
  const cuda_stream stream;
  const auto d_in = to_device(input, stream);
  device_buffer<float> d_out(input.size(), stream);
  device_buffer<float> d_total(1, stream);
  // Poisoned, as every output is: besides, initcheck does not see the pipelined scan's bulk-copy
  // stores, and would take the whole output for unwritten.
  d_out.fill_bytes(poison_byte);
  d_total.fill_bytes(poison_byte);
  inclusive_scan(deterministic, d_in.data(), d_out.data(), sum{}, n, stream.get());
  reduce(deterministic, d_in.data(), d_total.data(), n, sum{}, 0.25f, stream.get());
  const std::vector<float> want = to_host(d_out);
  const float want_total = to_host(d_total).front();
  std::vector<float> got(input.size(), -1.0f);
  pipelines::host_source in(input.data(), n, sizeof(float));
  pipelines::host_sink out(got.data(), sizeof(float));
  EXPECT_EQ(pipelines::inclusive_scan<float>(deterministic, in, out, sum{}, chunks_of(window)).chunks, (n + window - 1) / window);
  EXPECT_EQ(0, std::memcmp(got.data(), want.data(), got.size() * sizeof(float)));
  const float total = pipelines::reduce(deterministic, in, sum{}, 0.25f, chunks_of(2 * window));
  EXPECT_EQ(0, std::memcmp(&total, &want_total, sizeof(float)));
}

TEST_F(streaming, ADeviceBudgetCutsTheRunAndOneTooSmallIsRefused) {
  std::mt19937_64 rng = make_rng(1404);
  const std::int64_t n = std::min<std::int64_t>(max_test_size(), 1 << 20);
  const io::host_array input = random_array(io::dtype::uint32, n, distribution::small, rng);
  std::vector<std::uint32_t> got(static_cast<std::size_t>(n), 0xABABABABu);
  pipelines::host_source in(input.bytes.data(), n, 4);
  pipelines::host_sink out(got.data(), 4);
  pipelines::stream_options o;
  o.limits = {std::size_t{1} << 20, std::size_t{1} << 30};  // 1 MiB of device memory for 4 MiB of input
  pipelines::chunk_plan seen;
  o.on_plan = [&](const pipelines::chunk_plan& p) { seen = p; };
  pipelines::inclusive_scan<std::uint32_t>(in, out, sum{}, o);
  if (n >= (1 << 18)) EXPECT_GT(seen.chunks, 3);
  std::uint32_t running = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    running += input.as<std::uint32_t>()[i];
    ASSERT_EQ(got[static_cast<std::size_t>(i)], running) << "element " << i;
  }
  o.limits = {4096, std::size_t{1} << 30};
  try {
    pipelines::inclusive_scan<std::uint32_t>(in, out, sum{}, o);
    if (n > 64) ADD_FAILURE() << "a 4 KiB device budget was accepted";
  } catch (const pipelines::stream_error& e) {
    EXPECT_EQ(e.what_failed(), pipelines::stream_error::kind::budget);
    EXPECT_NE(std::string(e.what()).find("needs at least"), std::string::npos) << e.what();
  }
}

TEST_F(streaming, PinnedSourcesAreCopiedInPlace) {
  std::mt19937_64 rng = make_rng(1405);
  const std::int64_t n = std::min<std::int64_t>(max_test_size(), 300007);
  pipelines::pinned_buffer pinned(static_cast<std::size_t>(n) * sizeof(double));
  auto* x = reinterpret_cast<double*>(pinned.data());
  std::uniform_real_distribution<double> u(-1, 1);
  for (std::int64_t i = 0; i < n; ++i) x[i] = u(rng);
  pipelines::host_source in(x, n, sizeof(double));
  long double exact = 0;
  double mass = 0;
  for (std::int64_t i = 0; i < n; ++i) exact += x[i], mass += std::abs(x[i]);
  for (std::int64_t chunk : {n, n / 4 + 1, std::int64_t{4097}}) {
    const double total = pipelines::reduce(in, sum{}, 0.0, chunks_of(chunk));
    EXPECT_NEAR(total, static_cast<double>(exact), typed::sum_tolerance<double>(mass, n)) << "chunk " << chunk;
    std::vector<double> kept(static_cast<std::size_t>(n));
    pipelines::host_sink out(kept.data(), sizeof(double));
    const std::int64_t k =
        pipelines::select_if<double>(in, out, above_half{}, chunks_of(chunk));
    std::int64_t want = 0;
    for (std::int64_t i = 0; i < n; ++i)
      if (x[i] > 0.5) ASSERT_EQ(kept[static_cast<std::size_t>(want++)], x[i]);
    EXPECT_EQ(k, want);
    std::vector<unsigned> counts(64, 0xABABABABu);  // poisoned: the counts are written, not added to
    pipelines::histogram_even<double>(in, counts.data(), 64, -1.0, 1.0, chunks_of(chunk));
    std::vector<unsigned> want_counts(64);
    for (std::int64_t i = 0; i < n; ++i) ++want_counts[static_cast<std::size_t>(std::min(63.0, (x[i] + 1.0) * 32.0))];
    EXPECT_EQ(counts, want_counts) << "chunk " << chunk;
  }
}

// Past 2^32 items: the carried prefix crosses chunk after chunk, 64-bit offsets all the way.
TEST_F(streaming_large, DISABLED_scan_and_compaction_past_2_pow_32_items) {
  const std::int64_t n = (std::int64_t{1} << 32) + 1000;
  std::vector<std::uint32_t> x(static_cast<std::size_t>(n));
  std::mt19937_64 rng = make_rng(1406);
  for (auto& v : x) v = static_cast<std::uint32_t>(rng() & 3);
  {
    std::vector<std::uint32_t> y(static_cast<std::size_t>(n), 0xABABABABu);
    pipelines::host_source in(x.data(), n, 4);
    pipelines::host_sink out(y.data(), 4);
    pipelines::stream_options o;
    o.limits.device_bytes = std::size_t{2} << 30;  // streamed whatever the GPU holds
    const auto plan = pipelines::exclusive_scan(in, out, 5u, sum{}, o);
    EXPECT_TRUE(plan.streamed());
    std::uint32_t running = 5;
    for (std::int64_t i = 0; i < n; ++i) {
      ASSERT_EQ(y[static_cast<std::size_t>(i)], running) << "element " << i;
      running += x[static_cast<std::size_t>(i)];
    }
  }
  std::vector<std::uint32_t> kept(static_cast<std::size_t>(n));
  pipelines::host_source in(x.data(), n, 4);
  pipelines::host_sink out(kept.data(), 4);
  pipelines::stream_options o;
  o.limits.device_bytes = std::size_t{2} << 30;
  const std::int64_t k = pipelines::select_if<std::uint32_t>(in, out, is_nonzero{}, o);
  std::int64_t want = 0;
  for (std::int64_t i = 0; i < n; ++i)
    if (x[static_cast<std::size_t>(i)] != 0) ASSERT_EQ(kept[static_cast<std::size_t>(want++)], x[static_cast<std::size_t>(i)]);
  EXPECT_EQ(k, want);
  EXPECT_GT(k, std::int64_t{1} << 31);
  std::vector<unsigned long long> counts(4, 0xABABABABABABABABull);  // poisoned, as above
  pipelines::histogram_even<std::uint32_t>(in, counts.data(), 4, 0, 4, o);
  std::vector<unsigned long long> want_counts(4);
  for (std::uint32_t v : x) ++want_counts[v];
  EXPECT_EQ(counts, want_counts);
}

}  // namespace
}  // namespace lookback::test
