// `scan --deterministic` and `reduce --deterministic`: on the CPU backend (in CI) the output is
// cpu::deterministic_scan's association bit for bit, in one chunk or streamed in chunks; across ranks
// the option is refused; with a GPU, --verify compares bit for bit and the GPU's files equal the CPU's.
#include <gtest/gtest.h>

#include "support/cli_harness.hpp"
#include "support/run_seed.hpp"

#include <lookback/primitives/cpu/deterministic_scan.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <random>

namespace {

using namespace lookback_test_cli;

struct plus {
  template <class T>
  T operator()(const T& a, const T& b) const { return a + b; }
};

class CliDeterministicTest : public CliTest {
 protected:
  /// Values over many decades, so that any other association shows in the last bits.
  template <class T>
  std::vector<T> write_wide(const std::string& name, std::int64_t n) const {
    auto rng = lookback::test::make_rng(static_cast<std::uint64_t>(n) * 3 + sizeof(T));
    std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
    std::uniform_int_distribution<int> exponent(-20, 20);
    std::vector<T> v(static_cast<std::size_t>(n));
    for (auto& x : v) x = static_cast<T>(std::ldexp(mantissa(rng), exponent(rng)));
    write_input(name, array_of(v));
    return v;
  }

  template <class T>
  std::vector<T> output_values(const std::string& name) const {
    const host_array a = read_output(name);
    const T* p = a.as<T>();
    return std::vector<T>(p, p + a.size());
  }

  /// The runs of each command line: in one chunk and streamed on the CPU (under `host_limit`), and on
  /// the GPU with --verify in one chunk and streamed (under `device_limit`: three slots of a window or
  /// two with --verify's extra, not the whole input) when there is one; every output's bytes are
  /// `expected`'s.
  void expect_every_run_gives(std::vector<std::string> command, const std::string& expected_file,
                              const std::string& host_limit, const std::string& device_limit) const {
    SCOPED_TRACE(::testing::PrintToString(command));
    // Each run's output replaces a stale file, so that a run that writes nothing shows.
    const auto run_to = [&](const std::string& name, std::vector<std::string> extra) {
      write_file(path(name), "old");
      std::vector<std::string> args = command;
      args.insert(args.end(), {"-o", arg(name)});
      args.insert(args.end(), extra.begin(), extra.end());
      return args;
    };
    const run_result whole = run_ok(run_to("whole.npy", {}));
    EXPECT_EQ(read_file(path("whole.npy")), read_file(path(expected_file)));
    const run_result streamed = run_ok(run_to("streamed.npy", {"--host-memory-limit", host_limit}));
    EXPECT_EQ(read_file(path("streamed.npy")), read_file(path(expected_file)));
    EXPECT_TRUE(contains(streamed.out, "streamed in ")) << streamed;
    if (!gpu_present()) return;
    for (const std::string& limit : {std::string("1GiB"), device_limit}) {
      const run_result gpu = run(run_to("gpu.npy", {"--backend", "gpu", "--verify", "--device-memory-limit", limit}));
      ASSERT_EQ(gpu.exit_code, ex_ok) << gpu;
      EXPECT_TRUE(contains(gpu.out, "bit for bit the CPU's deterministic association")) << gpu;
      EXPECT_EQ(contains(gpu.out, "streamed in "), limit == device_limit) << gpu;
      EXPECT_EQ(read_file(path("gpu.npy")), read_file(path(expected_file))) << "--device-memory-limit " << limit;
    }
  }
};

TEST_F(CliDeterministicTest, ScanAndReduceGiveTheAssociationBitForBitOnEveryPath) {
  using lookback::cpu::deterministic_scan;
  const std::int64_t n = 8 * 65536 + 777;  // seven windows of 69632 items and a partial one
  const auto f = write_wide<float>("f.npy", n);
  std::vector<float> expected(f.size());
  deterministic_scan(f.data(), expected.data(), n, plus{}, std::optional<float>(0.5f), true);
  write_input("exclusive.npy", array_of(expected));
  expect_every_run_gives({"scan", "-i", arg("f.npy"), "--deterministic", "--init", "0.5"}, "exclusive.npy", "1MiB", "5MiB");

  deterministic_scan(f.data(), expected.data(), n, plus{}, std::optional<float>(), false);
  write_input("inclusive.npy", array_of(expected));
  expect_every_run_gives({"scan", "-i", arg("f.npy"), "--deterministic", "--inclusive"}, "inclusive.npy", "1MiB", "5MiB");

  const float total = *deterministic_scan<float>(f.data(), nullptr, n, plus{}, 0.0f, true);
  write_input("total.npy", array_of(std::vector<float>{total}));
  expect_every_run_gives({"reduce", "-i", arg("f.npy"), "--deterministic"}, "total.npy", "1MiB", "1MiB");

  const auto d = write_wide<double>("d.npy", 65536 * 8 + 1);
  std::vector<double> inclusive(d.size());
  deterministic_scan(d.data(), inclusive.data(), static_cast<std::int64_t>(d.size()), plus{}, std::optional<double>(),
                     false);
  write_input("d_inclusive.npy", array_of(inclusive));
  expect_every_run_gives({"scan", "-i", arg("d.npy"), "--deterministic", "--inclusive"}, "d_inclusive.npy", "2MiB", "5MiB");
  if (!gpu_present()) GTEST_SKIP() << "the CPU runs passed; the GPU runs need a GPU";
}

TEST_F(CliDeterministicTest, NansAreNansOnEveryBackendThoughTheirBitsDiffer) {
  // A NaN with a payload, and inf + -inf: the GPU's arithmetic gives its one canonical NaN where the
  // host keeps the payload, so --verify takes any NaN for any NaN (it had reported a MISMATCH).
  std::vector<float> v(3000, 1.0f);
  v[100] = std::numeric_limits<float>::infinity();
  v[101] = -std::numeric_limits<float>::infinity();  // NaN from here on
  const std::uint32_t payload = 0x7fc00001u;
  std::memcpy(&v[2000], &payload, sizeof payload);
  write_input("nan.npy", array_of(v));
  std::vector<std::vector<std::string>> extras{{"--backend", "cpu"}};
  if (gpu_present()) extras.push_back({"--backend", "gpu", "--verify"});
  for (const auto& extra : extras) {
    SCOPED_TRACE(::testing::PrintToString(extra));
    std::vector<std::string> args{"scan", "-i", arg("nan.npy"), "--deterministic", "--inclusive", "-o", arg("out.npy")};
    args.insert(args.end(), extra.begin(), extra.end());
    write_file(path("out.npy"), "old");  // the run before's output must not pass for this one's
    const run_result r = run(args);
    ASSERT_EQ(r.exit_code, ex_ok) << r;
    const auto out = output_values<float>("out.npy");
    for (std::size_t i = 0; i < out.size(); ++i) ASSERT_EQ(std::isnan(out[i]), i >= 101) << i;
  }
  if (!gpu_present()) GTEST_SKIP() << "the CPU run passed; the GPU run needs a GPU";
}

TEST_F(CliDeterministicTest, TheSummaryNamesTheAssociation) {
  write_wide<float>("f.npy", 1000);
  const run_result r = run_ok({"scan", "-i", arg("f.npy"), "-o", arg("out.npy"), "--deterministic"});
  EXPECT_TRUE(contains(r.out, "deterministic exclusive sum scan of 1000 float32 elements")) << r;
}

TEST_F(CliDeterministicTest, AcrossRanksItIsRefused) {
  write_wide<float>("f.npy", 100);
  for (const char* command : {"scan", "reduce"})
    for (const std::vector<std::string>& launch : {std::vector<std::string>{"--gpus", "1"}, std::vector<std::string>{"--distributed"}}) {
      std::vector<std::string> args{command, "-i", arg("f.npy"), "--deterministic"};
      if (std::string(command) == "scan") args.insert(args.end(), {"-o", arg("out.npy")});
      args.insert(args.end(), launch.begin(), launch.end());
      const run_result r = run(args);
      EXPECT_EQ(r.exit_code, ex_usage) << r;
      expect_one_error_line(r, std::string("lookback ") + command + ": ",
                            "--deterministic runs in one process, on one GPU or the CPU; leave out " + launch[0]);
      EXPECT_FALSE(fs::exists(path("out.npy")));
    }
}

}  // namespace
