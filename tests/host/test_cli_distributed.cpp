// The command across ranks. On the CPU backend (CI runs these): `mpirun -np 3 lookback ... --distributed
// --backend cpu` writes what the single-process command writes, bit for bit, for every array command,
// with ranks that hold no items too; rank 0 alone prints. The error paths: the launch options refused
// up front, --distributed outside an MPI launch and an MPI launch without it, ranks that disagree on
// the options, a rank that cannot open its input and a rank that alone passes its memory limit: every
// rank stops, one line names the rank and the cause, and an existing output stays as it was with no
// temporary left. With a GPU: --gpus 1 and `mpirun -np 1 ... --distributed` equal today's results.
#include <gtest/gtest.h>

#include "support/cli_harness.hpp"
#include "support/run_seed.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdlib>
#include <random>

namespace {

using namespace lookback_test_cli;

#ifndef LOOKBACK_MPIEXEC
#define LOOKBACK_MPIEXEC ""
#endif
const char* const mpiexec = configured_path("LOOKBACK_MPIEXEC", LOOKBACK_MPIEXEC);

/// The one line of stderr that starts with `prefix` (mpirun adds its own notices around the ranks').
std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
  std::vector<std::string> found;
  for (const std::string& line : lines_of(text))
    if (line.rfind(prefix, 0) == 0) found.push_back(line);
  return found;
}

/// mpirun's words for several programs at once, each `ranks` copies of its `words`, joined by ":".
std::vector<std::string> mpmd(const std::vector<std::pair<int, std::vector<std::string>>>& programs) {
  std::vector<std::string> all;
  for (const auto& [ranks, words] : programs) {
    if (!all.empty()) all.push_back(":");
    all.insert(all.end(), {"-np", std::to_string(ranks)});
    all.insert(all.end(), words.begin(), words.end());
  }
  return all;
}

/// `words` and then `more`.
std::vector<std::string> plus(std::vector<std::string> words, const std::vector<std::string>& more) {
  words.insert(words.end(), more.begin(), more.end());
  return words;
}

class CliDistributedTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    if (IsSkipped()) return;
    if (*mpiexec == '\0') GTEST_SKIP() << "built without MPI: no mpirun to launch ranks with";
    // Open MPI refuses root without these; CI's containers run as root.
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    ::setenv("OMPI_MCA_rmaps_base_oversubscribe", "1", 1);
  }

  /// mpirun with `launch_args` (ranks, and : for several programs) where each program is `lookback`.
  run_result mpirun(const std::vector<std::string>& words) const {
    std::vector<std::string> args{"--oversubscribe"};
    for (const std::string& w : words) args.push_back(w == "lookback" ? std::string(lookback_binary) : w);
    return run_program(mpiexec, args, dir_);
  }

  /// `command` on `ranks` CPU ranks.
  run_result on_ranks(int ranks, std::vector<std::string> command) const {
    std::vector<std::string> words{"-np", std::to_string(ranks), "lookback"};
    words.insert(words.end(), command.begin(), command.end());
    words.insert(words.end(), {"--distributed", "--backend", "cpu"});
    return mpirun(words);
  }

  template <class T>
  void write_random(const std::string& name, std::int64_t n, std::uint32_t seed, int spread) const {
    auto rng = lookback::test::make_rng(seed);
    std::vector<T> v(static_cast<std::size_t>(n));
    for (auto& x : v) x = static_cast<T>(static_cast<int>(rng() % static_cast<std::uint32_t>(2 * spread + 1)) - spread);
    write_input(name, array_of(v));
  }

  /// `command` with its OUT and OUT2 placeholders naming TAG.npy and TAG_values.npy, each first written
  /// stale so that a run that writes nothing shows.
  std::vector<std::string> with_outputs(std::vector<std::string> command, const std::string& tag) const {
    for (std::string& w : command)
      for (const auto& [placeholder, suffix] : output_files)
        if (w == placeholder) {
          write_file(path(tag + suffix), "old");
          w = arg(tag + suffix);
        }
    return command;
  }

  /// The output files `command` names, as suffixes of a tag.
  static std::vector<std::string> outputs_of(const std::vector<std::string>& command) {
    std::vector<std::string> suffixes;
    for (const auto& [placeholder, suffix] : output_files)
      if (std::find(command.begin(), command.end(), placeholder) != command.end()) suffixes.push_back(suffix);
    return suffixes;
  }
  static constexpr std::pair<const char*, const char*> output_files[] = {{"OUT", ".npy"}, {"OUT2", "_values.npy"}};

  /// The command on `ranks` ranks writes the single-process command's files bit for bit and prints
  /// one summary naming the ranks.
  void expect_ranks_equal_one_process(int ranks, const std::vector<std::string>& command) {
    SCOPED_TRACE(::testing::PrintToString(command) + " on " + std::to_string(ranks) + " ranks");
    const run_result one = run_ok(with_outputs(command, "one"));
    const run_result many = on_ranks(ranks, with_outputs(command, "many"));
    ASSERT_EQ(many.exit_code, ex_ok) << many;
    for (const std::string& suffix : outputs_of(command)) {
      EXPECT_NE(read_file(path("one" + suffix)), "old") << suffix;
      EXPECT_EQ(read_file(path("one" + suffix)), read_file(path("many" + suffix))) << suffix;
    }
    // Its first line (a reduce's value, the others' summary) once: rank 0 alone prints.
    const std::vector<std::string> lines = lines_of(many.out);
    ASSERT_FALSE(lines.empty()) << many;
    const std::string first = lines.front();
    EXPECT_EQ(std::count(lines.begin(), lines.end(), first), 1) << many;
    EXPECT_TRUE(contains(many.out, std::to_string(ranks) + (ranks == 1 ? " rank" : " ranks") + " over MPI on the CPU")) << many;
    if (command[0] == "reduce") EXPECT_EQ(first, lines_of(one.out).at(0));
    if (command[0] == "sort") EXPECT_TRUE(contains(many.out, "items (")) << "the exchange's volume\n" << many;
    for (const std::string& name : names_of(snapshot(dir_))) EXPECT_NE(name.front(), '.') << "a temporary was left: " << name;
  }

  /// A failed launch: the launcher's status, rank 0's one line naming `fragment`, out.npy as it was,
  /// and nothing but `names` left in the folder.
  void expect_stopped_cleanly(const run_result& r, int code, const std::string& prefix, const std::string& fragment,
                              const std::set<std::string>& names) const {
    EXPECT_EQ(r.exit_code, code) << r;
    const auto reports = lines_starting(r.err, prefix);
    ASSERT_EQ(reports.size(), 1u) << "one report, from rank 0\n" << r;
    EXPECT_TRUE(contains(reports[0], fragment)) << r;
    EXPECT_EQ(read_file(path("out.npy")), "old") << r;
    EXPECT_EQ(names_of(snapshot(dir_)), names) << r;
  }
};

TEST_F(CliDistributedTest, EveryArrayCommandOnThreeRanksEqualsOneProcess) {
  write_random<std::int32_t>("in.npy", 100003, 7, 1000);
  write_random<float>("f.npy", 50021, 8, 300);
  write_random<std::int64_t>("v.npy", 100003, 9, 1 << 20);
  write_random<std::uint8_t>("flags.npy", 100003, 10, 1);
  const std::vector<std::vector<std::string>> commands = {
      {"scan", "-i", arg("in.npy"), "-o", "OUT"},
      {"scan", "-i", arg("in.npy"), "-o", "OUT", "--inclusive", "--op", "max"},
      {"scan", "-i", arg("in.npy"), "-o", "OUT", "--init", "17"},
      {"reduce", "-i", arg("in.npy")},
      {"reduce", "-i", arg("f.npy"), "--op", "min", "-o", "OUT"},
      {"histogram", "-i", arg("in.npy"), "-o", "OUT", "--bins", "100", "--range", "-500:500", "--query", "10:20"},
      {"compact", "-i", arg("in.npy"), "-o", "OUT", "--predicate", "gt:0"},
      {"compact", "-i", arg("f.npy"), "-o", "OUT", "--predicate", "lt:-250"},
      {"compact", "-i", arg("in.npy"), "-o", "OUT", "--flags", arg("flags.npy")},
      {"sort", "-i", arg("in.npy"), "-o", "OUT"},
      {"sort", "-i", arg("f.npy"), "-o", "OUT", "--descending"},
      {"sort", "-i", arg("in.npy"), "-o", "OUT", "--values", arg("v.npy"), "--values-output", "OUT2", "--bits", "4:12"},
  };
  for (const auto& command : commands) expect_ranks_equal_one_process(3, command);
}

TEST_F(CliDistributedTest, OneRankAndRanksWithoutItemsEqualOneProcess) {
  write_random<std::int32_t>("two.npy", 2, 11, 50);
  write_random<std::int32_t>("none.npy", 0, 12, 50);
  write_random<std::uint32_t>("some.npy", 1001, 13, 1 << 30);
  for (const char* input : {"two.npy", "none.npy"}) {
    expect_ranks_equal_one_process(4, {"sort", "-i", arg(input), "-o", "OUT"});
    expect_ranks_equal_one_process(4, {"scan", "-i", arg(input), "-o", "OUT", "--inclusive"});
    expect_ranks_equal_one_process(4, {"compact", "-i", arg(input), "-o", "OUT", "--predicate", "nonzero"});
  }
  expect_ranks_equal_one_process(1, {"sort", "-i", arg("some.npy"), "-o", "OUT"});
  expect_ranks_equal_one_process(1, {"scan", "-i", arg("some.npy"), "-o", "OUT"});
}

TEST_F(CliDistributedTest, VerifyComparesWithTheSingleProcessRun) {
  write_random<std::int32_t>("in.npy", 30011, 14, 1000);
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"sort", "-i", arg("in.npy"), "-o", arg("out.npy"), "--verify"},
        std::vector<std::string>{"scan", "-i", arg("in.npy"), "-o", arg("out.npy"), "--verify"},
        std::vector<std::string>{"reduce", "-i", arg("in.npy"), "--verify"},
        std::vector<std::string>{"histogram", "-i", arg("in.npy"), "--bins", "10", "--range", "0:100", "--verify"},
        std::vector<std::string>{"compact", "-i", arg("in.npy"), "-o", arg("out.npy"), "--predicate", "ne:3", "--verify"}}) {
    const run_result r = on_ranks(3, command);
    EXPECT_EQ(r.exit_code, ex_ok) << r;
    EXPECT_TRUE(contains(r.out, ": 3 ranks over MPI on the CPU equal the single-process run")) << r;
  }
}

// --verify across ranks reads the written output back: a device cannot give it, so it is refused
// before any rank works, not failed afterwards as a short read.
TEST_F(CliDistributedTest, VerifyIntoADeviceIsRefused) {
  write_random<std::int32_t>("in.npy", 1000, 17, 1000);
  for (const std::string& command : {"scan", "sort"}) {
    const run_result r = on_ranks(2, {command, "-i", arg("in.npy"), "-o", "/dev/null", "--verify"});
    EXPECT_EQ(r.exit_code, ex_usage) << r;
    EXPECT_GE(lines_starting(r.err, "lookback " + command + ": rank 0: /dev/null: --verify with --gpus or --distributed").size(),
              1u)
        << r;
  }
  // Without --verify a device takes the result.
  EXPECT_EQ(on_ranks(2, {"scan", "-i", arg("in.npy"), "-o", "/dev/null"}).exit_code, ex_ok);
}

TEST_F(CliDistributedTest, LaunchOptionsAreCheckedUpFront) {
  write_random<std::int32_t>("in.npy", 10, 15, 5);
  const auto before = snapshot(dir_);
  struct row {
    std::vector<std::string> args;
    int code;
    std::string message;
  };
  const std::vector<row> rows = {
      {{"sort", "-i", arg("in.npy"), "-o", arg("out.npy"), "--distributed"}, ex_usage,
       "--distributed runs one process per rank under an MPI launcher: mpirun -np P lookback"},
      {{"sort", "-i", arg("in.npy"), "-o", arg("out.npy"), "--gpus", "2", "--distributed", "--backend", "gpu"},
       gpu_present() ? ex_usage : ex_unavailable, "--gpus"},
      {{"scan", "-i", arg("in.npy"), "-o", arg("out.npy"), "--gpus", "1", "--backend", "cpu"}, ex_usage,
       "--gpus runs on GPUs and does not combine with --backend cpu"},
      {{"reduce", "-i", arg("in.npy"), "--gpus", "two", "--backend", "gpu"}, gpu_present() ? ex_usage : ex_unavailable,
       "--gpus"},
      {{"compact", "-i", arg("in.npy"), "-o", arg("out.npy"), "--predicate", "nonzero", "--gpus", "4096", "--backend", "gpu"},
       ex_unavailable, "--gpus"},
      {{"histogram", "-i", arg("in.npy"), "--bins", "4", "--range", "0:4", "--distributed", "--device-memory-limit",
        "1GiB"},
       ex_usage, "--device-memory-limit does not apply to --distributed"},
  };
  for (const row& r : rows) {
    SCOPED_TRACE(::testing::PrintToString(r.args));
    const run_result result = run_cpu(r.args);  // the CPU backend unless the row picks one
    EXPECT_EQ(result.exit_code, r.code) << result;
    expect_one_error_line(result, "lookback " + r.args[0] + ": ", r.message);
    EXPECT_EQ(snapshot(dir_), before);
  }
}

TEST_F(CliDistributedTest, AnMpiLaunchWithoutDistributedIsRefusedOnEveryRank) {
  write_random<std::int32_t>("in.npy", 10, 16, 5);
  write_file(path("out.npy"), "old");
  const run_result r = mpirun({"-np", "2", "lookback", "sort", "-i", arg("in.npy"), "-o", arg("out.npy"), "--backend", "cpu"});
  EXPECT_EQ(r.exit_code, ex_usage) << r;
  EXPECT_GE(lines_starting(r.err, "lookback sort: started by an MPI launcher as one of 2 ranks, without --distributed").size(), 1u)
      << r;
  EXPECT_EQ(read_file(path("out.npy")), "old");
  EXPECT_EQ(names_of(snapshot(dir_)), (std::set<std::string>{"in.npy", "out.npy"}));
}

TEST_F(CliDistributedTest, RanksThatDisagreeOnTheOptionsAllStop) {
  write_random<std::int32_t>("in.npy", 1000, 17, 500);
  write_file(path("out.npy"), "old");
  const std::vector<std::string> sort{"lookback", "sort", "-i", arg("in.npy"), "-o", arg("out.npy"), "--distributed",
                                      "--backend", "cpu"};
  const auto words = mpmd({{2, sort}, {1, plus(sort, {"--descending"})}});
  expect_stopped_cleanly(mpirun(words), ex_usage, "lookback sort: rank 2: ", "command line or inputs differ from rank 0's",
                         {"in.npy", "out.npy"});
}

TEST_F(CliDistributedTest, ARankThatCannotOpenItsInputStopsEveryRank) {
  write_random<std::int32_t>("in.npy", 1000, 18, 500);
  write_file(path("out.npy"), "old");
  const auto scan = [&](const std::string& input) {
    return std::vector<std::string>{"lookback", "scan", "-i", arg(input), "-o", arg("out.npy"), "--distributed", "--backend", "cpu"};
  };
  const auto words = mpmd({{1, scan("in.npy")}, {1, scan("gone.npy")}, {1, scan("in.npy")}});
  expect_stopped_cleanly(mpirun(words), ex_noinput, "lookback scan: rank 1: ", "gone.npy", {"in.npy", "out.npy"});
}

TEST_F(CliDistributedTest, ARankThatAlonePassesItsMemoryLimitStopsEveryRank) {
  write_random<std::int32_t>("in.npy", 3000, 19, 500);
  write_file(path("out.npy"), "old");
  const std::vector<std::string> scan{"lookback", "scan", "-i", arg("in.npy"), "-o", arg("out.npy"), "--distributed",
                                      "--backend", "cpu"};
  // The memory limits are each host's own, so the ranks may differ in them; rank 2's is too small. On
  // the CPU backend a scan's item takes four copies (its slice, the uploaded one, the result, its
  // download): 16 bytes of int32.
  const auto words = mpmd({{2, scan}, {1, plus(scan, {"--host-memory-limit", "1KiB"})}});
  expect_stopped_cleanly(mpirun(words), ex_usage, "lookback scan: rank 2: ",
                         "its slice of 1000 items needs 15.6 KiB of host memory (--host-memory-limit 1.0 KiB)",
                         {"in.npy", "out.npy"});
}

// With a GPU: one GPU through NCCL, from one process and as the one rank of an MPI launch, writes
// what the single-GPU command writes; a second rank on a one-GPU host is refused by every rank.
class CliDistributedGpuTest : public CliDistributedTest {
 protected:
  void SetUp() override {
    CliDistributedTest::SetUp();
    if (IsSkipped()) return;
    if (!gpu_present()) GTEST_SKIP() << "no CUDA device";
  }
  void check_against_one_gpu(int gpus);
};

/// Each command on `gpus` GPUs, by one process (--gpus) and by one process a GPU (mpirun), equals the
/// single-GPU command, and --verify says so.
void CliDistributedGpuTest::check_against_one_gpu(int gpus) {
  write_random<std::uint32_t>("keys.npy", 1000003, 20, 1 << 30);
  write_random<std::int32_t>("in.npy", 1000003, 21, 1000);
  const std::vector<std::vector<std::string>> commands = {
      {"sort", "-i", arg("keys.npy"), "-o", "OUT", "--values", arg("in.npy"), "--values-output", "OUT2"},
      {"scan", "-i", arg("in.npy"), "-o", "OUT"},
      {"compact", "-i", arg("in.npy"), "-o", "OUT", "--predicate", "gt:0"},
      {"histogram", "-i", arg("in.npy"), "-o", "OUT", "--bins", "64", "--range", "-1000:1000"},
      {"reduce", "-i", arg("in.npy"), "-o", "OUT", "--op", "max"},
  };
  for (const auto& command : commands) {
    SCOPED_TRACE(::testing::PrintToString(command));
    std::vector<std::string> single = with_outputs(command, "one");
    single.insert(single.end(), {"--backend", "gpu"});
    const run_result one = run(single);
    ASSERT_EQ(one.exit_code, ex_ok) << one;
    std::vector<std::string> on_gpus = with_outputs(command, "gpus");
    on_gpus.insert(on_gpus.end(), {"--gpus", std::to_string(gpus), "--verify"});
    const run_result threads = run(on_gpus);
    ASSERT_EQ(threads.exit_code, ex_ok) << threads;
    const std::string on_gpus_text = gpus == 1 ? "1 GPU over NCCL " : std::to_string(gpus) + " GPUs over NCCL ";
    EXPECT_TRUE(contains(threads.out, on_gpus_text)) << threads;
    EXPECT_TRUE(contains(threads.out, "outputs match")) << threads;
    EXPECT_TRUE(contains(threads.out, "equal the single-process run")) << threads;
    std::vector<std::string> ranks{"-np", std::to_string(gpus), "lookback"};
    const std::vector<std::string> launched = with_outputs(command, "mpi");
    ranks.insert(ranks.end(), launched.begin(), launched.end());
    ranks.insert(ranks.end(), {"--distributed", "--backend", "gpu", "--verify"});
    const run_result mpi = mpirun(ranks);
    ASSERT_EQ(mpi.exit_code, ex_ok) << mpi;
    const std::string ranks_text = gpus == 1 ? "1 rank over NCCL " : std::to_string(gpus) + " ranks over NCCL ";
    EXPECT_TRUE(contains(mpi.out, ranks_text)) << mpi;
    for (const std::string& suffix : outputs_of(command)) {
      EXPECT_NE(read_file(path("one" + suffix)), "old") << suffix;
      EXPECT_EQ(read_file(path("one" + suffix)), read_file(path("gpus" + suffix))) << suffix;
      EXPECT_EQ(read_file(path("one" + suffix)), read_file(path("mpi" + suffix))) << suffix;
    }
  }
}

TEST_F(CliDistributedGpuTest, OneGpuEqualsTheSingleGpuCommand) { check_against_one_gpu(1); }

TEST_F(CliDistributedGpuTest, EveryGpuOfTheMachineEqualsOneGpu) {
  int gpus = 0;
  ASSERT_EQ(cudaGetDeviceCount(&gpus), cudaSuccess);
  if (gpus < 2) GTEST_SKIP() << "one GPU on this machine: --gpus 1 is the test above";
  check_against_one_gpu(gpus);
}

// Ranks that each see only their own GPU, as under Slurm's --gpus-per-task=1: both are local rank
// 0's or 1's turn of the one GPU they see, and they are different GPUs.
TEST_F(CliDistributedGpuTest, RanksBoundToAGpuEachByTheLauncherRun) {
  int gpus = 0;
  ASSERT_EQ(cudaGetDeviceCount(&gpus), cudaSuccess);
  if (gpus < 2) GTEST_SKIP() << "one GPU on this machine: binding a GPU to each of two ranks needs two";
  write_random<std::int32_t>("in.npy", 100003, 23, 1000);
  std::vector<std::string> words;
  for (int r = 0; r < 2; ++r) {
    if (r > 0) words.push_back(":");
    const std::vector<std::string> rank{"-np", "1", "-x", "CUDA_VISIBLE_DEVICES=" + std::to_string(r), "lookback",
                                        "scan", "-i", arg("in.npy"), "-o", arg("out.npy"), "--distributed", "--backend",
                                        "gpu", "--verify"};
    words.insert(words.end(), rank.begin(), rank.end());
  }
  const run_result r = mpirun(words);
  ASSERT_EQ(r.exit_code, ex_ok) << r;
  EXPECT_TRUE(contains(r.out, "2 ranks over NCCL")) << r;
  EXPECT_TRUE(contains(r.out, "outputs match")) << r;
}

// --backend auto on a rank that sees no GPU takes the CPU, where rank 0 takes its GPU: refused as
// such, not as command lines that differ.
TEST_F(CliDistributedGpuTest, RanksWhoseAutoBackendsDifferAreRefusedAsSuch) {
  write_random<std::int32_t>("in.npy", 1000, 24, 1000);
  write_file(path("out.npy"), "old");
  std::vector<std::string> words;
  for (int r = 0; r < 2; ++r) {
    if (r > 0) words.push_back(":");
    const std::vector<std::string> rank{"-np", "1", "-x", r == 0 ? "CUDA_VISIBLE_DEVICES=0" : "CUDA_VISIBLE_DEVICES=",
                                        "lookback", "scan", "-i", arg("in.npy"), "-o", arg("out.npy"), "--distributed"};
    words.insert(words.end(), rank.begin(), rank.end());
  }
  const run_result r = mpirun(words);
  expect_stopped_cleanly(r, ex_unavailable, "lookback scan: rank 1: ",
                         "runs on the CPU (it sees no usable GPU) where rank 0 runs on the GPU", {"in.npy", "out.npy"});
}

TEST_F(CliDistributedGpuTest, MoreRanksThanGpusOnAHostAreRefused) {
  int gpus = 0;
  ASSERT_EQ(cudaGetDeviceCount(&gpus), cudaSuccess);
  write_random<std::uint32_t>("keys.npy", 1000, 22, 1 << 30);
  write_file(path("out.npy"), "old");
  const run_result r = mpirun({"-np", std::to_string(gpus + 1), "lookback", "sort", "-i", arg("keys.npy"), "-o",
                               arg("out.npy"), "--distributed", "--backend", "gpu"});
  expect_stopped_cleanly(r, ex_unavailable, "lookback sort: rank " + std::to_string(gpus) + ": ",
                         "has no GPU of its own", {"keys.npy", "out.npy"});
}

}  // namespace
