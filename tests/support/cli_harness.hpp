#pragma once
// The harness of the command-line tests: runs the `lookback` binary in a private temporary directory,
// captures its exit code, stdout and stderr, and checks the error contract (one line, the documented
// exit code, nothing created or changed). Each subcommand's tests include it.

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <type_traits>
#include <vector>

#include "io/array.hpp"
#include "io/dtype.hpp"
#include "io/npy.hpp"
#include "typed/gpu_probe.hpp"

namespace lookback_test_cli {

namespace fs = std::filesystem;
using lookback::io::dtype;
using lookback::io::host_array;

// The environment overrides the build-time paths (the GPU bundle runs the tests from another folder);
// empty when neither is set (no lookback target), and the tests needing them then skip.
inline const char* configured_path(const char* variable, const char* built_in) {
  const char* env = std::getenv(variable);
  return env != nullptr ? env : built_in;
}
#ifndef LOOKBACK_BINARY
#define LOOKBACK_BINARY ""
#endif
#ifndef LOOKBACK_DATA_DIR
#define LOOKBACK_DATA_DIR ""
#endif
const char* const lookback_binary = configured_path("LOOKBACK_BINARY", LOOKBACK_BINARY);
const char* const sample_data_dir = configured_path("LOOKBACK_DATA_DIR", LOOKBACK_DATA_DIR);

// sysexits(3) values, the command's documented interface: restated rather than taken from
// cli/exit_codes.hpp, so that changing a constant there breaks this test as it would break scripts.
constexpr int ex_ok = 0, ex_usage = 64, ex_dataerr = 65, ex_noinput = 66, ex_unavailable = 69, ex_cantcreat = 73,
              ex_ioerr = 74;

// --- running the command ----------------------------------------------------------

struct run_result {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::ostream& operator<<(std::ostream& os, const run_result& r) {
  return os << "exit " << r.exit_code << "\n--- stdout ---\n" << r.out << "--- stderr ---\n" << r.err;
}

[[noreturn]] inline void fail_errno(const char* what) { throw std::runtime_error(std::string(what) + ": " + std::strerror(errno)); }

// Drains both pipes together: reading one to its end first would deadlock once the child filled the other.
inline void drain(int out_fd, int err_fd, run_result& r) {
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  int open_count = 2;
  while (open_count > 0) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      fail_errno("poll");
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[4096];
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_count;
      }
    }
  }
}

// Runs `program` with `args` in `cwd`, stdin from /dev/null, stdout captured unless `stdout_path`
// names a file to write it to instead. Exit code 128 + N means killed by signal N.
inline run_result run_program(const std::string& program, const std::vector<std::string>& args, const fs::path& cwd,
                              const char* stdout_path = nullptr) {
  std::vector<std::string> words{program};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);

  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) fail_errno("pipe2");
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) fail_errno("pipe2");
  const pid_t pid = ::fork();
  if (pid < 0) fail_errno("fork");
  if (pid == 0) {
    // Async-signal-safe calls only between fork and exec.
    const int null_fd = ::open("/dev/null", O_RDONLY);
    const int out_fd = stdout_path != nullptr ? ::open(stdout_path, O_WRONLY) : out_pipe[1];
    if (null_fd < 0 || out_fd < 0 || ::dup2(null_fd, 0) < 0 || ::dup2(out_fd, 1) < 0 || ::dup2(err_pipe[1], 2) < 0 ||
        ::chdir(cwd.c_str()) != 0)
      ::_exit(127);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  run_result r;
  drain(out_pipe[0], err_pipe[0], r);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) fail_errno("waitpid");
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

// The command with `args` (see run_program).
inline run_result run_lookback(const std::vector<std::string>& args, const fs::path& cwd, const char* stdout_path = nullptr) {
  return run_program(lookback_binary, args, cwd, stdout_path);
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

inline bool contains(const std::string& text, const std::string& fragment) { return text.find(fragment) != std::string::npos; }

/// Sets an environment variable, which the commands a test runs inherit, until the scope ends; then
/// puts back what was there (or nothing).
class scoped_env {
 public:
  scoped_env(const char* name, const std::string& value) : name_(name) {
    if (const char* before = std::getenv(name)) saved_ = before;
    ::setenv(name, value.c_str(), 1);
  }
  ~scoped_env() { saved_ ? ::setenv(name_, saved_->c_str(), 1) : ::unsetenv(name_); }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;

 private:
  const char* name_;
  std::optional<std::string> saved_;
};

/// Whether this machine has a CUDA device (the GPU tests skip without one).
inline bool gpu_present() { return lookback::typed::usable_gpu_count() > 0; }

// The error contract: a single newline-terminated line, "lookback <command>: ...", naming what went wrong.
inline void expect_one_error_line(const run_result& r, const std::string& prefix, const std::string& fragment) {
  const bool one_line = std::count(r.err.begin(), r.err.end(), '\n') == 1 && r.err.back() == '\n';
  EXPECT_TRUE(one_line) << "stderr must be exactly one line\n" << r;
  if (!one_line) return;
  EXPECT_EQ(r.err.rfind(prefix, 0), 0u) << "expected the prefix \"" << prefix << "\"\n" << r;
  EXPECT_TRUE(contains(r.err, fragment)) << "expected \"" << fragment << "\" in stderr\n" << r;
}

// --- arrays and files ----------------------------------------------------------------

template <class T>
inline host_array array_of(const std::vector<T>& values, std::vector<std::int64_t> shape = {}) {
  host_array a;
  a.type = lookback::io::dtype_of<T>();
  a.shape = shape.empty() ? std::vector<std::int64_t>{static_cast<std::int64_t>(values.size())} : std::move(shape);
  a.bytes.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(a.bytes.data(), values.data(), a.bytes.size());
  return a;
}

template <class T>
inline std::vector<T> elements(const host_array& a) {
  EXPECT_EQ(a.type, lookback::io::dtype_of<T>());
  std::vector<T> v(a.bytes.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), a.bytes.data(), a.bytes.size());
  return v;
}

template <class T>
inline std::string bytes_of(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

// A whole .npy file in memory, for table rows that are built before any directory exists.
inline std::string npy_text(const host_array& a) {
  return lookback::io::npy_header_for(a.type, a.shape) + std::string(reinterpret_cast<const char*>(a.bytes.data()), a.bytes.size());
}

inline std::string le16(std::size_t v) { return {static_cast<char>(v & 0xff), static_cast<char>((v >> 8) & 0xff)}; }

// Hand-made .npy (format 1.0) whose header says what the test wants, true or not.
inline std::string npy_with_header(const std::string& header, const std::string& data) {
  return std::string("\x93NUMPY\x01\x00", 8) + le16(header.size()) + header + data;
}

inline std::string npy_dict(const std::string& descr, const std::string& shape, const std::string& fortran = "False") {
  return "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': " + shape + ", }\n";
}

// A .npy file the reader refuses, and what it says after the file's name.
struct npy_rejection {
  std::string name;
  std::string contents;
  std::string message;
};

// Every way the .npy reader refuses a file, around an array of 4-byte elements of `kind` ('i' or 'f')
// and shape `dims` (one or two of them) that the command would otherwise take.
inline std::vector<npy_rejection> npy_rejections(char kind, const std::vector<int>& dims) {
  std::size_t elements = 1;
  std::string inner;
  for (const int d : dims) {
    elements *= static_cast<std::size_t>(d);
    inner += (inner.empty() ? "" : ", ") + std::to_string(d);
  }
  const std::string shape = dims.size() == 1 ? "(" + inner + ",)" : "(" + inner + ")";
  const std::string three_d = "(" + std::string(dims.size() == 1 ? "1, 1, " : "1, ") + inner + ")";
  const std::string descr = std::string("<") + kind + "4";
  const std::string data(4 * elements, '\7');
  return {
      {"empty_file", "", "not a .npy file: too short (0 bytes)"},
      {"header_past_end", std::string("\x93NUMPY\x01\x00", 8) + le16(1000) + "{'descr'", "header length 1000 runs past end of file"},
      {"truncated_data", npy_with_header(npy_dict(descr, shape), data.substr(4)),
       "truncated data: header says " + std::to_string(elements) + " elements"},
      {"big_endian", npy_with_header(npy_dict(std::string(">") + kind + "4", shape), data),
       std::string("big-endian dtype '>") + kind + "4' not supported"},
      // Column-major with two extents past 1 (with one, its bytes are row-major ones, and read).
      {"fortran_order", npy_with_header(npy_dict(descr, "(2, " + std::to_string(elements) + ")", "True"), data + data),
       "Fortran-order"},
      {"object_dtype", npy_with_header(npy_dict("|O", shape), std::string(8 * elements, '\0')),
       "object arrays ('|O') not supported"},
      {"complex_dtype", npy_with_header(npy_dict("<c8", shape), std::string(8 * elements, '\0')),
       "complex dtype '<c8' not supported"},
      {"three_dimensional", npy_with_header(npy_dict(descr, three_d), data), "3-D array not supported"},
  };
}

inline std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

inline void write_file(const fs::path& p, const std::string& bytes) {
  std::ofstream f(p, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw std::runtime_error("cannot write " + p.string());
}

/// Runs lookback with `args` under a file size limit (0: none) and returns its exit code and peak RSS.
inline std::pair<int, long> run_measured(const std::vector<std::string>& args, const fs::path& cwd, rlim_t file_limit) {
  std::vector<std::string> words{lookback_binary};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  // SIGXFSZ ignored (inherited across exec), so a write past the limit fails with EFBIG instead of killing.
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int null_fd = ::open("/dev/null", O_RDWR);
    if (file_limit != 0) {
      rlimit small{file_limit, file_limit};
      ::setrlimit(RLIMIT_FSIZE, &small);
    }
    if (null_fd < 0 || ::dup2(null_fd, 0) < 0 || ::dup2(null_fd, 1) < 0 || ::chdir(cwd.c_str()) != 0) ::_exit(127);
    ::execv(lookback_binary, argv.data());
    ::_exit(127);
  }
  std::signal(SIGXFSZ, old_handler);
  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0)
    if (errno != EINTR) return {-1, 0};
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), usage.ru_maxrss};
}

// Starts lookback with `args` as from a terminal that Ctrl-C will be pressed in: SIGINT at its default
// (a shell's background job, this test run as one, would pass it on ignored, and the command rightly
// leaves an ignored signal alone), stdin, stdout and stderr on /dev/null, `env` ("NAME=value") ahead of this
// process's environment, and a process group of its own (its pid), which kill(-pid, SIGINT) reaches
// whole, children too. Wait for it with wait_status.
inline pid_t start_interruptible(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
  std::vector<std::string> words{lookback_binary};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  std::vector<std::string> settings(env);
  for (char** e = environ; *e != nullptr; ++e) settings.emplace_back(*e);
  std::vector<char*> envp;
  for (std::string& e : settings) envp.push_back(e.data());
  envp.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) fail_errno("fork");
  if (pid == 0) {
    // Async-signal-safe calls only between fork and exec.
    ::setpgid(0, 0);
    const int null_fd = ::open("/dev/null", O_RDWR);
    if (null_fd < 0 || ::dup2(null_fd, 0) < 0 || ::dup2(null_fd, 1) < 0 || ::dup2(null_fd, 2) < 0) ::_exit(127);
    ::signal(SIGINT, SIG_DFL);
    sigset_t none;  // nor blocked, should the test runner block it
    ::sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execve(lookback_binary, argv.data(), envp.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here, so that the group exists whichever process runs first
  return pid;
}

// Polls `ready` every millisecond until it holds or `limit` passes; whether it held.
template <class Ready>
bool wait_until(Ready&& ready, std::chrono::seconds limit) {
  const auto started = std::chrono::steady_clock::now();
  while (!ready()) {
    if (std::chrono::steady_clock::now() - started >= limit) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// Waits for `pid` to end; its wait status.
inline int wait_status(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) fail_errno("waitpid");
  return status;
}

// Every entry under `dir`, by relative path: file contents, or a marker for a directory.
inline std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> tree;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string name = fs::relative(e.path(), dir).string();
    tree[name] = e.is_directory() ? std::string("<directory>") : read_file(e.path());
  }
  return tree;
}

inline std::set<std::string> names_of(const std::map<std::string, std::string>& tree) {
  std::set<std::string> names;
  for (const auto& entry : tree) names.insert(entry.first);
  return names;
}

// A file (or, without contents, a directory) that a table row needs before the command runs.
struct file_spec {
  std::string name;
  std::optional<std::string> contents;
};

inline file_spec file(std::string name, std::string contents) { return {std::move(name), std::move(contents)}; }
inline file_spec directory(std::string name) { return {std::move(name), std::nullopt}; }

// The small array most tests feed the command, and its reductions and scans worked out by hand.
const std::vector<std::int32_t> small_values{3, -1, 4, 1, -5, 9};
constexpr const char* small_sum = "11";

// --- the fixture -------------------------------------------------------------------------

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (*lookback_binary == '\0') GTEST_SKIP() << "LOOKBACK_BINARY is not defined: built without the lookback target";
    std::string pattern = (fs::temp_directory_path() / "lookback-test-cli-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr) << std::strerror(errno);
    dir_ = pattern;
  }

  void TearDown() override {
    if (dir_.empty()) return;
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  fs::path path(const std::string& name) const { return dir_ / name; }
  std::string arg(const std::string& name) const { return path(name).string(); }

  // `{tmp}` in a row's arguments and messages stands for the test's directory, unknown when rows are built.
  std::string expand(std::string text) const {
    const std::string token = "{tmp}";
    for (std::size_t at = text.find(token); at != std::string::npos; at = text.find(token, at + dir_.string().size()))
      text.replace(at, token.size(), dir_.string());
    return text;
  }

  void prepare(const file_spec& f) const {
    const fs::path p = path(f.name);
    fs::create_directories(p.parent_path());
    if (f.contents)
      write_file(p, *f.contents);
    else
      fs::create_directories(p);
  }

  run_result run(const std::vector<std::string>& args) const { return run_lookback(args, dir_); }

  // The CPU backend unless a test picks one: then no GPU probe notice can join stderr, and the results
  // do not depend on the machine.
  run_result run_cpu(std::vector<std::string> args) const {
    // Right after the command, so that a row's trailing option stays the last word.
    if (!args.empty() && std::find(args.begin(), args.end(), "--backend") == args.end())
      args.insert(args.begin() + 1, {"--backend", "cpu"});
    return run(args);
  }

  // run_cpu under a file size limit standing in for a full disk: SIGXFSZ ignored (inherited across
  // exec), so a write past it fails with EFBIG.
  run_result run_cpu_with_file_limit(std::vector<std::string> args, rlim_t limit) const {
    struct rlimit old {};
    ::getrlimit(RLIMIT_FSIZE, &old);
    const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit small{limit, old.rlim_max};
    ::setrlimit(RLIMIT_FSIZE, &small);
    run_result r = run_cpu(std::move(args));
    ::setrlimit(RLIMIT_FSIZE, &old);
    std::signal(SIGXFSZ, old_handler);
    return r;
  }

  // Runs lookback with `args` under a 1 MiB file size limit, which its output (or spill) passes: it
  // must exit EX_IOERR, leave out.npy as `old` left it and the folder holding `names` alone.
  void expect_full_disk_changes_nothing(const std::vector<std::string>& args, const std::string& old,
                                        const std::set<std::string>& names) const {
    SCOPED_TRACE(::testing::PrintToString(args));
    write_file(path("out.npy"), old);
    EXPECT_EQ(run_measured(args, dir_, 1 << 20).first, ex_ioerr);
    EXPECT_EQ(read_file(path("out.npy")), old);
    EXPECT_EQ(names_of(snapshot(dir_)), names);
  }

  // A run that must succeed quietly.
  run_result run_ok(const std::vector<std::string>& args) const {
    run_result r = run_cpu(args);
    EXPECT_EQ(r.exit_code, ex_ok) << r;
    EXPECT_EQ(r.err, "") << r;
    return r;
  }

  void write_input(const std::string& name, const host_array& a) const { lookback::io::write_npy(path(name), a); }
  host_array read_output(const std::string& name) const { return lookback::io::read_npy(path(name)); }

  fs::path dir_;
};

struct bad_run {
  std::string name;
  std::string command;
  std::vector<std::string> args;  // after the command; "{tmp}" is the test's directory
  std::vector<file_spec> files;
  int exit_code;
  std::string message;  // must appear in the one stderr line; "{tmp}" expanded
};

inline void PrintTo(const bad_run& r, std::ostream* os) {
  *os << r.command;
  for (const std::string& a : r.args) *os << ' ' << (a.empty() ? "''" : a);
}

// A bad-input table's fixture: every row runs the same check.
class CliBadInputTest : public CliTest, public ::testing::WithParamInterface<bad_run> {
 protected:
  // The row must fail with its exit code and one stderr line naming the problem, and create, delete
  // and change nothing.
  void check_row_fails_cleanly() {
    const bad_run& row = GetParam();
    for (const file_spec& f : row.files) prepare(f);
    const auto before = snapshot(dir_);

    std::vector<std::string> args{row.command};
    for (const std::string& a : row.args) args.push_back(expand(a));
    const run_result r = run_cpu(args);

    EXPECT_EQ(r.exit_code, row.exit_code) << r;
    const bool unknown_command = row.message.rfind("unknown command", 0) == 0;
    expect_one_error_line(r, unknown_command ? "lookback: " : "lookback " + row.command + ": ", expand(row.message));

    const auto after = snapshot(dir_);
    EXPECT_EQ(names_of(after), names_of(before)) << "a failed run must create and delete nothing\n" << r;
    for (const auto& [name, contents] : before)
      if (after.count(name) != 0) {
        EXPECT_TRUE(after.at(name) == contents) << name << " was modified\n" << r;
      }
  }
};

}  // namespace lookback_test_cli
