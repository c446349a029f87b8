// Streaming on the CPU backend, which CI runs: --host-memory-limit cuts every array command into
// chunks and the output equals the one-chunk run bit for bit; the summary names the path; caps too
// small or malformed are refused up front; peak memory stays bounded on an input many times the cap;
// a write that fails part way (a file size limit standing in for a full disk) and a file that ends
// early leave one line, the listed exit code, no temporary and the old output untouched.
#include <gtest/gtest.h>

#include "cli/array_stream.hpp"
#include "support/cli_harness.hpp"
#include "support/run_seed.hpp"

#include <lookback/pipelines/chunk_plan.hpp>
#include <lookback/pipelines/sink.hpp>
#include <lookback/pipelines/sort/msd_sort.hpp>
#include <lookback/pipelines/source.hpp>

#include <csignal>
#include <random>

#include <sys/resource.h>
#include <sys/wait.h>

namespace {

using namespace lookback_test_cli;
namespace pipelines = lookback::pipelines;

class CliStreamingTest : public CliTest {
 protected:
  /// n int32 values from a fixed generator, some of them negative.
  void write_values(const std::string& name, std::int64_t n) const {
    auto rng = lookback::test::make_rng(static_cast<unsigned>(n));
    std::vector<std::int32_t> v(static_cast<std::size_t>(n));
    for (auto& x : v) x = static_cast<std::int32_t>(rng() % 2001) - 1000;
    write_input(name, array_of(v));
  }
};

TEST_F(CliStreamingTest, EveryArrayCommandStreamedEqualsTheOneChunkRun) {
  write_values("in.npy", 300001);
  const std::vector<std::vector<std::string>> commands = {
      {"scan", "-i", arg("in.npy"), "-o", "OUT.npy"},
      {"scan", "-i", arg("in.npy"), "-o", "OUT.npy", "--inclusive", "--op", "max"},
      {"reduce", "-i", arg("in.npy"), "-o", "OUT.npy"},
      {"reduce", "-i", arg("in.npy"), "-o", "OUT.npy", "--op", "min"},
      {"histogram", "-i", arg("in.npy"), "-o", "OUT.npy", "--bins", "100", "--range", "-500:500"},
      {"compact", "-i", arg("in.npy"), "-o", "OUT.npy", "--predicate", "gt:0"},
      {"compact", "-i", arg("in.npy"), "-o", "OUT.npy", "--flags", arg("in.npy")},
      {"compact", "-i", arg("in.npy"), "-o", "OUT.npy", "--predicate", "gt:5000"},
  };
  for (const auto& command : commands) {
    SCOPED_TRACE(::testing::PrintToString(command));
    const auto with_output = [&](const std::string& name) {
      std::vector<std::string> args = command;
      std::replace(args.begin(), args.end(), std::string("OUT.npy"), arg(name));
      return args;
    };
    // Different stale contents in each: a run that leaves its output unwritten cannot pass.
    write_file(path("whole.npy"), "stale whole");
    write_file(path("streamed.npy"), "stale streamed");
    const run_result whole = run_ok(with_output("whole.npy"));
    std::vector<std::string> streamed_args = with_output("streamed.npy");
    streamed_args.insert(streamed_args.end(), {"--host-memory-limit", "256KiB"});
    const run_result streamed = run_ok(streamed_args);
    EXPECT_EQ(read_file(path("whole.npy")), read_file(path("streamed.npy")));
    EXPECT_TRUE(command[0] == "reduce" || contains(whole.out, "(in-core)")) << whole;
    EXPECT_TRUE(contains(streamed.out, "streamed in ")) << streamed;
    // A reduction prints its value: the same either way.
    if (command[0] == "reduce") EXPECT_EQ(lines_of(whole.out).front(), lines_of(streamed.out).front());
  }
}

// Wide flags are converted in pieces of 2^12: each piece's items land where they belong, in one chunk
// and in many.
TEST_F(CliStreamingTest, WideFlagsKeepTheValuesTheyMark) {
  auto rng = lookback::test::make_rng(2718);
  std::vector<std::int32_t> values(200003);
  std::vector<std::int64_t> flags(values.size());
  std::vector<std::int32_t> kept;
  for (std::size_t i = 0; i < values.size(); ++i) {
    values[i] = static_cast<std::int32_t>(i);
    flags[i] = rng() % 3 == 0 ? std::int64_t{1} << (8 * (rng() % 8)) : 0;  // nonzero in any one byte
    if (flags[i] != 0) kept.push_back(values[i]);
  }
  write_input("v.npy", array_of(values));
  write_input("f.npy", array_of(flags));
  for (const char* cap : {"1GiB", "256KiB"}) {
    SCOPED_TRACE(cap);
    write_file(path("out.npy"), "old");  // the run before's output must not pass for this one's
    run_ok({"compact", "--backend", "cpu", "-i", arg("v.npy"), "--flags", arg("f.npy"), "-o", arg("out.npy"),
            "--host-memory-limit", cap});
    EXPECT_EQ(elements<std::int32_t>(read_output("out.npy")), kept);
  }
}

TEST_F(CliStreamingTest, ACapTooSmallForOneChunkIsRefusedWithTheMinimum) {
  write_values("in.npy", 100000);
  const run_result r = run_cpu({"scan", "-i", arg("in.npy"), "-o", arg("out.npy"), "--host-memory-limit", "1KiB"});
  EXPECT_EQ(r.exit_code, ex_usage) << r;
  expect_one_error_line(r, "lookback scan: ", "too small for one chunk");
  EXPECT_TRUE(contains(r.err, "of host memory (limit 1.0 KiB)")) << r;
  EXPECT_FALSE(fs::exists(path("out.npy")));
  EXPECT_EQ(names_of(snapshot(dir_)), (std::set<std::string>{"in.npy"}));
}

TEST_F(CliStreamingTest, MalformedSizesAreUsageErrors) {
  write_values("in.npy", 10);
  for (const char* text : {"abc", "-5MiB", "0", "12XB", "MiB", "1e30GB"})
    for (const char* option : {"--device-memory-limit", "--host-memory-limit"}) {
      const run_result r = run_cpu({"reduce", "-i", arg("in.npy"), option, text});
      EXPECT_EQ(r.exit_code, ex_usage) << r;
      expect_one_error_line(r, "lookback reduce: ", std::string(option) + ": '" + text + "' is not a size");
    }
}

TEST(ByteSizes, ParseAsDocumented) {
  using lookback::cli::parse_byte_size;
  EXPECT_EQ(parse_byte_size("64MiB"), std::size_t{64} << 20);
  EXPECT_EQ(parse_byte_size("2GiB"), std::size_t{2} << 30);
  EXPECT_EQ(parse_byte_size("0.5GB"), std::size_t{500000000});
  EXPECT_EQ(parse_byte_size("1000"), std::size_t{1000});
  EXPECT_EQ(parse_byte_size("1.5KiB"), std::size_t{1536});
  EXPECT_FALSE(parse_byte_size("").has_value());
  EXPECT_FALSE(parse_byte_size("0.1").has_value());
  EXPECT_FALSE(parse_byte_size("5 MiB").has_value());
}

TEST(ChunkPlans, OneChunkWhenItFitsElseTheWidestThatDoes) {
  pipelines::chunk_costs costs;
  costs.device_per_item = 8;
  costs.host_per_item = 8;
  const pipelines::chunk_plan whole = pipelines::plan_chunks(1000, costs, {1 << 20, 1 << 20});
  EXPECT_EQ(whole.chunks, 1);
  EXPECT_EQ(pipelines::describe(whole), "in-core");
  const pipelines::chunk_plan cut = pipelines::plan_chunks(1 << 20, costs, {3 * 8 * 10000, 1 << 30});
  EXPECT_EQ(cut.chunk_items, 10000);
  EXPECT_EQ(cut.chunks, ((1 << 20) + 9999) / 10000);
  EXPECT_EQ(cut.depth, 3);
  EXPECT_EQ(cut.count_of(cut.chunks - 1), (1 << 20) - (cut.chunks - 1) * 10000);
  EXPECT_EQ(pipelines::describe(cut), "streamed in " + std::to_string(cut.chunks) + " chunks of 10000");
  EXPECT_THROW(pipelines::plan_chunks(1 << 20, costs, {100, 1 << 30}), pipelines::stream_error);
  const pipelines::chunk_plan none = pipelines::plan_chunks(0, costs, {1, 1});
  EXPECT_EQ(none.chunks, 0);
}

TEST(ChunkPlans, AChunkMultipleRoundsStreamedChunksDownAndRefusesBudgetsBelowOne) {
  pipelines::chunk_costs costs;
  costs.device_per_item = 8;
  costs.host_per_item = 8;
  pipelines::plan_limits limits;
  limits.chunk_multiple = 65536;
  const pipelines::chunk_plan cut = pipelines::plan_chunks(1 << 22, costs, {3 * 8 * 200000, 1 << 30}, limits);
  EXPECT_EQ(cut.chunk_items, 3 * 65536);
  EXPECT_EQ(cut.chunks, ((1 << 22) + 3 * 65536 - 1) / (3 * 65536));
  // Fewer items than one multiple: one chunk of all of them.
  EXPECT_EQ(pipelines::plan_chunks(1000, costs, {1 << 20, 1 << 20}, limits).chunk_items, 1000);
  EXPECT_THROW(pipelines::plan_chunks(1 << 22, costs, {3 * 8 * 60000, 1 << 30}, limits), pipelines::stream_error);
  // A widest chunk below the multiple cannot be kept: refused, not exceeded.
  limits.max_chunk_items = 1000;
  EXPECT_THROW(pipelines::plan_chunks(1 << 22, costs, {1 << 30, 1 << 30}, limits), std::invalid_argument);
}

// Reads of several 8 MiB parts at once: sizes whose bytes do not divide among the parts, one byte past a
// multiple of the parts' pages included (its last byte was once left unread), every byte compared.
// The external sort writes its spill into the output only where the output lies apart from every input:
// each side spans its own item size (4-byte values inside the second half of an 8-byte keys' output overlap it).
TEST(ExternalSortSpill, HostArraysOverlapBySpansOfTheirOwnItemSizes) {
  std::vector<std::uint64_t> keys_out(100);
  pipelines::host_sink out(keys_out.data(), 8);
  const pipelines::host_source values_in_second_half(keys_out.data() + 60, 100, 4);
  const pipelines::host_source values_past_the_end(keys_out.data() + 100, 100, 4);
  EXPECT_FALSE(pipelines::host_apart(&values_in_second_half, &out, 100, 8));
  EXPECT_TRUE(pipelines::host_apart(&values_past_the_end, &out, 100, 8));
  EXPECT_TRUE(pipelines::host_apart(nullptr, &out, 100, 8));
}

TEST(FileSources, ReadsInSeveralPartsCoverEveryByte) {
  char name[] = "/tmp/lookback-source-XXXXXX";
  const int fd = ::mkstemp(name);
  ASSERT_GE(fd, 0);
  const std::int64_t most = (std::int64_t{24} << 20) + 4099;
  std::vector<unsigned char> bytes(static_cast<std::size_t>(most));
  auto rng = lookback::test::make_rng(most);
  for (auto& b : bytes) b = static_cast<unsigned char>(rng());
  ASSERT_EQ(::write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  for (const std::int64_t n : {(std::int64_t{24} << 20) + 1, (std::int64_t{24} << 20) + 2, (std::int64_t{16} << 20) + 1,
                               (std::int64_t{32} << 20) / 2 + 3, most}) {
    pipelines::file_source source(fd, name, 0, n, 1);
    std::vector<unsigned char> got(static_cast<std::size_t>(n), 0xAB), again(got.size(), 0x54);
    source.read(0, n, got.data());
    source.read(0, n, again.data());
    EXPECT_TRUE(std::equal(got.begin(), got.end(), bytes.begin())) << n << " bytes";
    EXPECT_EQ(got, again) << n << " bytes";
  }
  ::close(fd);
  ::unlink(name);
}

TEST(FileSources, AFileThatEndsEarlyIsAReadErrorNamingTheItems) {
  char name[] = "/tmp/lookback-source-XXXXXX";
  const int fd = ::mkstemp(name);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "12345678", 8), 8);
  pipelines::file_source source(fd, name, 0, 4, 4);  // claims 16 bytes, holds 8
  char buffer[16];
  source.read(0, 2, buffer);
  try {
    source.read(1, 3, buffer);
    ADD_FAILURE() << "a short read passed";
  } catch (const pipelines::stream_error& e) {
    EXPECT_EQ(e.what_failed(), pipelines::stream_error::kind::read);
    EXPECT_TRUE(contains(e.what(), "file ended early")) << e.what();
    EXPECT_TRUE(contains(e.what(), "items 1..3")) << e.what();
  }
  ::close(fd);
  ::unlink(name);
}

TEST_F(CliStreamingTest, PeakMemoryStaysBoundedOnAnInputManyTimesTheCap) {
  const std::int64_t n = 16 << 20;  // 64 MiB of int32, read and written again
  write_values("in.npy", n);
  const auto [code, peak_kib] = run_measured(
      {"scan", "--backend", "cpu", "-i", arg("in.npy"), "-o", arg("out.npy"), "--host-memory-limit", "4MiB"}, dir_, 0);
  EXPECT_EQ(code, ex_ok);
  // The process itself (libraries, the CUDA runtime's static part) and 4 MiB of chunks: far below the
  // 64 MiB input, let alone input and output together.
  EXPECT_LT(peak_kib, 40 * 1024) << "peak resident set " << peak_kib << " KiB";
  const auto [whole_code, whole_peak] =
      run_measured({"scan", "--backend", "cpu", "-i", arg("in.npy"), "-o", arg("whole.npy")}, dir_, 0);
  EXPECT_EQ(whole_code, ex_ok);
  EXPECT_GT(whole_peak, 100 * 1024) << "the one-chunk run holds input and output";
  EXPECT_EQ(read_file(path("out.npy")), read_file(path("whole.npy")));
}

TEST_F(CliStreamingTest, AWriteThatFailsPartWayLeavesTheOldOutputAndNoTemporary) {
  write_values("in.npy", 1 << 20);  // 4 MiB out, written chunk by chunk past a 1 MiB file limit
  for (const char* command : {"scan", "compact"}) {
    std::vector<std::string> args{command, "--backend", "cpu", "-i", arg("in.npy"), "-o", arg("out.npy"),
                                  "--host-memory-limit", "512KiB"};
    if (std::string(command) == "compact") args.insert(args.end(), {"--predicate", "ne:12345"});
    expect_full_disk_changes_nothing(args, "old contents", {"in.npy", "out.npy"});
  }
  // The message: one line naming the output and the chunk.
  const run_result r = run_cpu_with_file_limit(
      {"scan", "-i", arg("in.npy"), "-o", arg("out.npy"), "--host-memory-limit", "512KiB"}, 1 << 20);
  EXPECT_EQ(r.exit_code, ex_ioerr) << r;
  expect_one_error_line(r, "lookback scan: " + arg("out.npy") + ": write failed: File too large", "(chunk ");
}

}  // namespace
