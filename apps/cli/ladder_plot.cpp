#include "cli/ladder_plot.hpp"

#include "cli/cli_error.hpp"
#include "cli/exit_codes.hpp"
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <optional>
#include <vector>

extern char** environ;

#ifndef LOOKBACK_SOURCE_SCRIPTS_DIR
#define LOOKBACK_SOURCE_SCRIPTS_DIR ""
#endif

namespace lookback::cli {
namespace {

namespace fs = std::filesystem;

/// Runs `argv` (PATH searched) with stdin and stdout on /dev/null and stderr into `stderr_path`;
/// returns its exit status, or -1 when it could not start or died of a signal.
int run_program(const std::vector<std::string>& argv, const fs::path& stderr_path) {
  std::vector<char*> words;
  for (const std::string& w : argv) words.push_back(const_cast<char*>(w.c_str()));
  words.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = 0;
  const int started = posix_spawnp(&pid, words[0], &actions, nullptr, words.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (started != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// A private temporary directory, removed with everything in it, also when Ctrl-C or a kill ends the
/// command: the directory and the names of the files that may be made in it are registered with
/// atomic_file's signal cleanup.
class scratch_dir {
 public:
  explicit scratch_dir(std::initializer_list<const char*> entries) {
    std::string made;
    std::error_code ec;
    const fs::path temp = fs::temp_directory_path(ec);
    if (ec) throw cli_error(exit_code::cant_create, "--plot: no temporary directory (TMPDIR): " + ec.message());
    if (io::create_registered((temp / "lookback-plot-").string(), true, directory_, made) < 0)
      throw cli_error(exit_code::cant_create, "--plot: cannot create a temporary directory in " + temp.string() + ": " +
                                                  std::strerror(errno));
    path_ = made;
    guards_.reserve(entries.size());
    try {
      for (const char* name : entries) guards_.push_back(std::make_unique<io::removed_on_signal>(path_ / name));
    } catch (...) {
      std::error_code ec;
      fs::remove_all(path_, ec);
      throw;
    }
  }
  ~scratch_dir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;
  fs::path operator/(const char* name) const { return path_ / name; }

 private:
  fs::path path_;
  std::optional<io::removed_on_signal> directory_;
  std::vector<std::unique_ptr<io::removed_on_signal>> guards_;
};

std::string first_line_of(const fs::path& p) {
  std::ifstream f(p);
  std::string line;
  std::string last;
  // Python's traceback ends with the error itself: the last non-empty line says most.
  while (std::getline(f, line))
    if (!line.empty()) last = line;
  return last.empty() ? "no message" : last;
}

std::optional<std::string> find_script() {
  if (const char* env = std::getenv("LOOKBACK_PLOT_SCRIPT")) {
    // Named by the user: refused before any work, not after the whole ladder has run.
    std::error_code ec;
    if (!fs::is_regular_file(env, ec) || ::access(env, R_OK) != 0)
      throw cli_error(exit_code::unavailable,
                      std::string("--plot: LOOKBACK_PLOT_SCRIPT names ") + env + ", which is not a readable file");
    return std::string(env);
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path().parent_path() / "share" / "lookback" / "plot_ladder.py";
    if (fs::is_regular_file(installed, ec)) return installed.string();
  }
  const fs::path source = fs::path(LOOKBACK_SOURCE_SCRIPTS_DIR) / "plot_ladder.py";
  if (*LOOKBACK_SOURCE_SCRIPTS_DIR != '\0' && fs::is_regular_file(source, ec)) return source.string();
  return std::nullopt;
}

}  // namespace

ladder_plotter find_ladder_plotter() {
  const auto script = find_script();
  if (!script) throw cli_error(exit_code::unavailable, "--plot: plot_ladder.py is not installed beside lookback (set LOOKBACK_PLOT_SCRIPT)");
  const scratch_dir scratch{"stderr"};
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("LOOKBACK_PYTHON")) candidates.emplace_back(env);
  else candidates = {"python3", "/usr/bin/python3"};
  for (const std::string& python : candidates)
    if (run_program({python, "-c", "import matplotlib"}, scratch / "stderr") == 0) return {python, *script};
  throw cli_error(exit_code::unavailable,
                  "--plot needs python3 with matplotlib (Debian: python3-matplotlib): " + first_line_of(scratch / "stderr"));
}

void draw_ladder_plot(const ladder_plotter& plotter, const std::string& table_json, io::atomic_output_file& out) {
  const scratch_dir scratch{"table.json", "stderr"};
  {
    std::ofstream json(scratch / "table.json");
    json << table_json;
    if (!json.flush()) throw cli_error(exit_code::io_error, "--plot: cannot write the table for the plot script");
  }
  const int status =
      run_program({plotter.python, plotter.script, (scratch / "table.json").string(), out.temp_path().string()}, scratch / "stderr");
  if (status != 0)
    throw cli_error(exit_code::software, out.path().string() + ": the plot script failed: " + first_line_of(scratch / "stderr"));
  out.commit();
}

}  // namespace lookback::cli
