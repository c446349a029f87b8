// The external sort on the CPU backend, which CI runs: under a small --host-memory-limit the command
// sorts in MSD buckets spilled to host memory or to a file, and its output equals the in-core sort's
// bit for bit (and a stable sort's); the summary names the path; a budget too small for one bucket is
// refused naming its need; peak memory stays bounded; a disk that fills while spilling or writing, a
// truncated input and Ctrl-C leave one line (or the signal), the listed exit code, no spill or
// temporary file and the old output untouched.
#include <gtest/gtest.h>

#include "support/cli_harness.hpp"
#include "support/run_seed.hpp"

#include <lookback/pipelines/spill_store.hpp>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <random>
#include <type_traits>

namespace {

using namespace lookback_test_cli;

class CliExternalSortTest : public CliTest {
 protected:
  template <class T>
  std::vector<T> write_keys(const std::string& name, std::int64_t n, std::uint64_t range) const {
    auto rng = lookback::test::make_rng(static_cast<std::uint64_t>(n) * 7 + range);
    std::vector<T> v(static_cast<std::size_t>(n));
    for (auto& x : v) x = static_cast<T>(range == 0 ? rng() : rng() % range);
    write_input(name, array_of(v));
    return v;
  }
  /// Sorts with and without a cap and expects the same files; returns the capped run's summary.
  std::string same_as_in_core(std::vector<std::string> args, const std::string& cap, bool values = false) const {
    std::vector<std::string> whole = args, capped = args;
    whole.insert(whole.end(), {"-o", arg("whole.npy")});
    capped.insert(capped.end(), {"-o", arg("capped.npy"), "--host-memory-limit", cap});
    if (values) {
      whole.insert(whole.end(), {"--values-output", arg("whole_v.npy")});
      capped.insert(capped.end(), {"--values-output", arg("capped_v.npy")});
    }
    const run_result w = run_ok(whole);
    EXPECT_TRUE(contains(w.out, "(in-core)")) << w;
    const run_result c = run_ok(capped);
    EXPECT_EQ(read_file(path("whole.npy")), read_file(path("capped.npy"))) << c;
    if (values) EXPECT_EQ(read_file(path("whole_v.npy")), read_file(path("capped_v.npy"))) << c;
    return c.out;
  }
};

TEST_F(CliExternalSortTest, CappedSortsEqualTheInCoreSortAndAStableSort) {
  const auto keys = write_keys<std::uint32_t>("k.npy", 1000003, 0);
  std::vector<std::int64_t> ids(keys.size());
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<std::int64_t>(i);
  write_input("v.npy", array_of(ids));
  const std::string out = same_as_in_core({"sort", "-i", arg("k.npy"), "--values", arg("v.npy")}, "2MiB", true);
  EXPECT_TRUE(contains(out, "(external: ")) << out;
  EXPECT_TRUE(contains(out, " buckets, 1 pass, spill in file)")) << out;
  std::vector<std::int64_t> order = ids;
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return keys[a] < keys[b]; });
  EXPECT_TRUE(elements<std::int64_t>(read_output("capped_v.npy")) == order);
}

/// `keys` in a stable sort by the bits a radix sort orders them by (the sign flipped, and a negative
/// float's every bit, so that the unsigned order is the value order), over bits [begin, end), either way.
/// As CUB does, the two zeros are one key: +0.0's pattern ascending, -0.0's descending.
template <class T>
std::vector<T> stable_sorted(std::vector<T> keys, bool descending, int begin, int end) {
  using U = std::conditional_t<sizeof(T) == 1, std::uint8_t,
                               std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                                  std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;
  const auto field = [&](T key) {
    U u;
    std::memcpy(&u, &key, sizeof u);
    const U sign = static_cast<U>(U{1} << (8 * sizeof(U) - 1));
    if constexpr (std::is_floating_point_v<T>) {
      if (descending && u == 0) u = sign;
      if (!descending && u == sign) u = 0;
      u = (u & sign) != 0 ? static_cast<U>(~u) : static_cast<U>(u | sign);
    }
    else if constexpr (std::is_signed_v<T>)
      u = static_cast<U>(u ^ sign);
    const int width = end - begin;
    const std::uint64_t mask = width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
    return (static_cast<std::uint64_t>(u) >> begin) & mask;
  };
  std::stable_sort(keys.begin(), keys.end(),
                   [&](T a, T b) { return descending ? field(a) > field(b) : field(a) < field(b); });
  return keys;
}

TEST_F(CliExternalSortTest, EveryKeyWidthDirectionAndBitRangeInBuckets) {
  const auto u8 = write_keys<std::uint8_t>("u8.npy", 300001, 0);
  const auto u16 = write_keys<std::uint16_t>("u16.npy", 300001, 0);
  const auto i64 = write_keys<std::int64_t>("i64.npy", 300001, 0);
  const auto few = write_keys<std::int32_t>("few.npy", 300001, 4);  // a handful of distinct keys: buckets split again
  std::vector<float> f(300001);
  auto rng = lookback::test::make_rng(5);
  for (auto& x : f) x = std::uniform_real_distribution<float>(-2, 2)(rng);
  f[10] = std::nanf(""), f[11] = -std::nanf(""), f[12] = 0.0f, f[13] = -0.0f, f[14] = INFINITY;
  write_input("f32.npy", array_of(f));
  // Each against the in-core run and against a stable sort formed here.
  const auto check = [&](const std::string& file, const auto& keys, bool descending, int begin, int end) {
    using T = typename std::decay_t<decltype(keys)>::value_type;
    std::vector<std::string> args{"sort", "-i", arg(file)};
    if (descending) args.push_back("--descending");
    if (begin != 0 || end != 8 * static_cast<int>(sizeof(T)))
      args.insert(args.end(), {"--bits", std::to_string(begin) + ":" + std::to_string(end)});
    SCOPED_TRACE(::testing::PrintToString(args));
    const std::string out = same_as_in_core(args, "1MiB");
    EXPECT_TRUE(contains(out, "(external: ")) << out;
    const auto got = elements<T>(read_output("capped.npy"));
    const auto expected = stable_sorted(keys, descending, begin, end);
    ASSERT_EQ(got.size(), expected.size());
    EXPECT_EQ(0, std::memcmp(got.data(), expected.data(), got.size() * sizeof(T))) << "not the stable sort's order";
  };
  check("u8.npy", u8, false, 0, 8);
  check("u16.npy", u16, true, 0, 16);
  check("i64.npy", i64, false, 5, 50);
  check("few.npy", few, false, 0, 32);
  check("f32.npy", f, true, 0, 32);
  check("f32.npy", f, false, 0, 31);
}

TEST_F(CliExternalSortTest, AllEqualKeysAreCopiedThroughAndAModerateCapSpillsToHostMemory) {
  std::vector<double> same(400000, 2.5);
  write_input("same.npy", array_of(same));
  const std::string equal = same_as_in_core({"sort", "-i", arg("same.npy")}, "1MiB");
  EXPECT_TRUE(contains(equal, "(external: 1 bucket, 1 pass")) << equal;
  write_keys<std::uint32_t>("k.npy", 1000003, 0);
  // 4 MB of keys: half of an 8 MiB budget holds the spill, the other half sorts buckets of 131072.
  const std::string host = same_as_in_core({"sort", "-i", arg("k.npy")}, "8MiB");
  EXPECT_TRUE(contains(host, "spill in host memory)")) << host;
}

TEST_F(CliExternalSortTest, ABudgetTooSmallForOneBucketIsAUsageError) {
  write_keys<std::uint64_t>("k.npy", 100000, 0);
  const run_result r = run_cpu({"sort", "-i", arg("k.npy"), "-o", arg("out.npy"), "--host-memory-limit", "16KiB"});
  EXPECT_EQ(r.exit_code, ex_usage) << r;
  expect_one_error_line(r, "lookback sort: ", "the host memory limit is too small for the external sort's buckets");
  EXPECT_FALSE(fs::exists(path("out.npy")));
}

TEST_F(CliExternalSortTest, PeakMemoryStaysBoundedOnAnInputManyTimesTheCap) {
  write_keys<std::uint32_t>("k.npy", 16 << 20, 0);  // 64 MiB of keys
  const auto [code, peak_kib] = run_measured(
      {"sort", "--backend", "cpu", "-i", arg("k.npy"), "-o", arg("out.npy"), "--host-memory-limit", "8MiB"}, dir_, 0);
  EXPECT_EQ(code, ex_ok);
  EXPECT_LT(peak_kib, 48 * 1024) << "peak resident set " << peak_kib << " KiB";
}

// Keys that almost fit the cap by their own bytes: the in-core sort's fields, indices and merge buffer
// (up to 24 bytes a key beside the 2 of input and output) would pass it, so the sort goes external.
TEST_F(CliExternalSortTest, PeakMemoryStaysBoundedWhenTheKeysAlmostFitTheCap) {
  write_keys<std::uint8_t>("k.npy", 6000000, 0);  // 11 bytes a key fit the cap, 22 (in core: 126 MiB) do not
  const auto [code, peak_kib] = run_measured(
      {"sort", "--backend", "cpu", "-i", arg("k.npy"), "-o", arg("out.npy"), "--host-memory-limit", "64MiB"}, dir_, 0);
  EXPECT_EQ(code, ex_ok);
  EXPECT_LT(peak_kib, 104 * 1024) << "peak resident set " << peak_kib << " KiB";
}

TEST_F(CliExternalSortTest, ADiskThatFillsWhileSpillingOrWritingLeavesTheOldOutputAndNoFiles) {
  write_keys<std::uint32_t>("k.npy", 1 << 20, 0);  // 4 MiB of keys: a 1 MiB file limit stops the spill, or the output
  for (const char* cap : {"2MiB", "12MiB"})  // spill in a file, or in host memory
    expect_full_disk_changes_nothing(
        {"sort", "--backend", "cpu", "-i", arg("k.npy"), "-o", arg("out.npy"), "--host-memory-limit", cap},
        "old contents", {"k.npy", "out.npy"});
  // The message: one line naming the spill file's directory.
  const run_result r = run_cpu_with_file_limit(
      {"sort", "-i", arg("k.npy"), "-o", arg("out.npy"), "--host-memory-limit", "2MiB"}, 1 << 20);
  EXPECT_EQ(r.exit_code, ex_ioerr) << r;
  expect_one_error_line(r, "lookback sort: spill file in " + dir_.string(), "File too large");
}

// An output that is a device has no folder to spill beside: $TMPDIR's is used, never /dev.
TEST_F(CliExternalSortTest, AnOutputThatIsADeviceSpillsInTmpdir) {
  write_keys<std::uint32_t>("k.npy", 1 << 20, 0);  // 4 MiB of keys: a 2 MiB cap spills to a file
  const auto sort_to_null = [&](const fs::path& tmpdir) {
    const scoped_env tmp("TMPDIR", tmpdir.string());
    return run_cpu({"sort", "-i", arg("k.npy"), "-o", "/dev/null", "--host-memory-limit", "2MiB"});
  };
  const run_result spilled = sort_to_null(dir_);
  EXPECT_EQ(spilled.exit_code, ex_ok) << spilled;
  EXPECT_TRUE(contains(spilled.out, "spill in file)")) << spilled;
  const fs::path missing = dir_ / "no-such-folder";
  const run_result refused = sort_to_null(missing);
  EXPECT_EQ(refused.exit_code, ex_ioerr) << refused;
  expect_one_error_line(refused, "lookback sort: spill file in " + missing.string(), "");
}

// An output through a link spills beside the file the link names, where the output itself goes.
TEST_F(CliExternalSortTest, AnOutputThroughALinkSpillsBesideItsTarget) {
  write_keys<std::uint32_t>("k.npy", 1 << 20, 0);
  fs::create_directory(path("sub"));
  fs::create_symlink(path("sub") / "real.npy", path("link.npy"));
  // A 1 MiB file limit stops the spill, whose error names its folder.
  const run_result r = run_cpu_with_file_limit(
      {"sort", "-i", arg("k.npy"), "-o", arg("link.npy"), "--host-memory-limit", "2MiB"}, 1 << 20);
  EXPECT_EQ(r.exit_code, ex_ioerr) << r;
  expect_one_error_line(r, "lookback sort: spill file in " + path("sub").string() + ":", "File too large");
}

TEST_F(CliExternalSortTest, ATruncatedInputIsADataErrorAndWritesNothing) {
  write_keys<std::uint32_t>("k.npy", 100000, 0);
  const std::string whole = read_file(path("k.npy"));
  write_file(path("k.npy"), whole.substr(0, whole.size() - 1000));
  const run_result r = run_cpu({"sort", "-i", arg("k.npy"), "-o", arg("out.npy"), "--host-memory-limit", "1MiB"});
  EXPECT_EQ(r.exit_code, ex_dataerr) << r;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r;
  EXPECT_TRUE(contains(r.err, arg("k.npy"))) << r;
  EXPECT_EQ(names_of(snapshot(dir_)), (std::set<std::string>{"k.npy"}));
}

TEST_F(CliExternalSortTest, CtrlCRemovesTheTemporaryOutputAndTheSpill) {
  write_keys<std::uint64_t>("k.npy", 32 << 20, 0);  // 256 MiB: a second or more of external sorting
  write_file(path("out.npy"), "old contents");
  const pid_t pid = start_interruptible(
      {"sort", "--backend", "cpu", "-i", arg("k.npy"), "-o", arg("out.npy"), "--host-memory-limit", "1MiB"});
  // Once the temporary output exists, the sort is under way: Ctrl-C then.
  const auto entries = [&] { return std::distance(fs::directory_iterator(dir_), fs::directory_iterator()); };
  if (!wait_until([&] { return entries() >= 3; }, std::chrono::seconds(30))) {
    ::kill(pid, SIGKILL);
    wait_status(pid);
    FAIL() << "no temporary output appeared in 30 s";
  }
  ::kill(pid, SIGINT);
  const int status = wait_status(pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the sort ended before Ctrl-C (status " << status << ")";
  EXPECT_EQ(WTERMSIG(status), SIGINT);
  EXPECT_EQ(read_file(path("out.npy")), "old contents");
  EXPECT_EQ(names_of(snapshot(dir_)), (std::set<std::string>{"k.npy", "out.npy"}));
}

TEST(SpillStore, AFileSpillIsNeverSeenInItsFolderAndReadsBackWhatWasWritten) {
  namespace pipelines = lookback::pipelines;
  std::string pattern = (fs::temp_directory_path() / "lookback-spill-XXXXXX").string();
  ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
  {
    auto store = pipelines::spill_store::in_file(pattern, 1000, 8);
    EXPECT_FALSE(store->in_host());
    EXPECT_EQ(std::distance(fs::directory_iterator(pattern), fs::directory_iterator()), 0);
    std::vector<std::uint64_t> items(1000), back(1000);
    for (std::size_t i = 0; i < items.size(); ++i) items[i] = i * i;
    store->as_sink().write(500, 500, items.data() + 500);
    store->as_sink().write(0, 500, items.data());
    store->as_source().read(0, 1000, back.data());
    EXPECT_EQ(items, back);
  }
  fs::remove(pattern);
}

TEST(SpillStore, AFolderThatCannotHoldTheSpillIsAWriteErrorNamingIt) {
  namespace pipelines = lookback::pipelines;
  try {
    pipelines::spill_store::in_file("/nonexistent-lookback-folder", 1000, 4);
    ADD_FAILURE() << "no error";
  } catch (const pipelines::stream_error& e) {
    EXPECT_EQ(e.what_failed(), pipelines::stream_error::kind::write);
    EXPECT_TRUE(contains(e.what(), "spill file in /nonexistent-lookback-folder: cannot create")) << e.what();
  }
}

}  // namespace
