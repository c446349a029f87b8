// scripts/plot_ladder.py, which `lookback ladder --plot` runs, on a table in the command's JSON form:
// a reduce ladder with a CUB row and a failed row must come out as a PNG.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>

#ifndef LOOKBACK_SOURCE_SCRIPTS_DIR
#define LOOKBACK_SOURCE_SCRIPTS_DIR ""
#endif

namespace {

namespace fs = std::filesystem;

// The interpreter the command would pick: python3 on PATH, else Debian's.
std::optional<std::string> python_with_matplotlib() {
  for (const char* python : {"python3", "/usr/bin/python3"})
    if (std::system((std::string(python) + " -c 'import matplotlib' 2>/dev/null").c_str()) == 0) return std::string(python);
  return std::nullopt;
}

const char* const table_json = R"({
  "command": "ladder", "family": "reduce", "type": "float32", "n": 16777216, "bytes_moved": 67108864,
  "gpu": "a test GPU", "timing": {"statistic": "median", "warmups": 2, "runs": 9},
  "rows": [
    {"variant": "1 interleaved, divergent", "rung": 1, "cub": false, "time_ms": 1.5, "gb_per_s": 44.7,
     "step_speedup": null, "cumulative_speedup": 1.0, "check": "ok"},
    {"variant": "10 production", "rung": 10, "cub": false, "time_ms": 0.03, "gb_per_s": 2236.9,
     "step_speedup": 50.0, "cumulative_speedup": 50.0, "check": "FAILED", "failure": "element 3 differs"},
    {"variant": "CUB DeviceReduce::Sum", "rung": null, "cub": true, "time_ms": 0.031, "gb_per_s": 2164.8,
     "step_speedup": 0.97, "cumulative_speedup": 48.4, "check": "ok"}
  ]
}
)";

// LOOKBACK_PLOT_SCRIPT, as for the command, else the source tree's (the GPU bundle sets it).
std::string plot_script() {
  if (const char* env = std::getenv("LOOKBACK_PLOT_SCRIPT")) return env;
  return *LOOKBACK_SOURCE_SCRIPTS_DIR == '\0' ? std::string() : std::string(LOOKBACK_SOURCE_SCRIPTS_DIR) + "/plot_ladder.py";
}

TEST(LadderPlot, DrawsTheCommandsJsonAsAPng) {
  const std::string script = plot_script();
  if (script.empty()) GTEST_SKIP() << "neither LOOKBACK_PLOT_SCRIPT nor LOOKBACK_SOURCE_SCRIPTS_DIR is defined";
  const auto python = python_with_matplotlib();
  if (!python) GTEST_SKIP() << "no python3 with matplotlib here (Debian: python3-matplotlib; scripts/setup-deps installs it)";
  const fs::path dir = fs::temp_directory_path() / ("lookback-plot-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  fs::create_directories(dir);
  std::ofstream(dir / "table.json") << table_json;
  const std::string command = *python + " " + script + " " + (dir / "table.json").string() + " " + (dir / "table.png").string();
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream png(dir / "table.png", std::ios::binary);
  const std::string bytes(std::istreambuf_iterator<char>(png), {});
  EXPECT_GT(bytes.size(), 1000u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  fs::remove_all(dir);
}

}  // namespace
