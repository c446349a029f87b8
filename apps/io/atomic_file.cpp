#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "io/io_error.hpp"

namespace fs = std::filesystem;

namespace lookback::io {
namespace {

[[noreturn]] void throw_errno(error_kind kind, const fs::path& p, std::string_view what, int err) {
  throw io_error(kind, p, std::string(what) + ": " + std::strerror(err));
}

// The temporary is created 0600; give the output the mode a plain open(O_CREAT, 0666)
// would have.  umask can only be read by setting it, which is harmless in this
// single-threaded tool.
mode_t default_file_mode() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

fs::path directory_of(const fs::path& p) { return p.has_parent_path() ? p.parent_path() : fs::path("."); }

// p absolute, with every symlink and "." or ".." that exists resolved. absolute() first: weakly_canonical
// leaves a relative path whose first component does not exist untouched, so "x" and "./x" would differ.
fs::path resolved(const fs::path& p, std::error_code& ec) { return fs::weakly_canonical(fs::absolute(p, ec), ec); }

// The signals whose default action ends the process, which would leave a temporary behind: Ctrl-C, a
// kill, a closed terminal, Ctrl-\, a write past the file-size limit, and a write into a pipe whose
// reader has gone (the ladder's table into `| head` while its --json and --plot files are open).
constexpr int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXFSZ, SIGPIPE};

// Makes the rename itself durable.  Best effort: some filesystems refuse fsync on
// directories, and the data is already safe by then.
void sync_directory(const fs::path& dir) {
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return;
  ::fsync(dfd);
  ::close(dfd);
}

// Temporaries still open when Ctrl-C (or a kill, a closed terminal) ends the process: the handler
// unlinks them, then lets the signal do what it would have done. Fixed slots, so the handler touches
// only memory that never moves, and unlink is async-signal-safe.
constexpr int temp_slots = 16;
char temp_names[temp_slots][4096];
volatile std::sig_atomic_t temp_used[temp_slots];
std::mutex temp_mutex;

extern "C" void remove_temporaries(int sig) {
  std::atomic_signal_fence(std::memory_order_acquire);
  for (int i = 0; i < temp_slots; ++i)
    if (temp_used[i] != 0) ::unlink(temp_names[i]);
  // Scratch directories once their files are gone (unlink refuses a directory, rmdir a file).
  for (int i = 0; i < temp_slots; ++i)
    if (temp_used[i] != 0) ::rmdir(temp_names[i]);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

int remember_temporary(const std::string& name) {
  static std::once_flag installed;
  std::call_once(installed, [] {
    for (const int sig : cleanup_signals) {
      struct sigaction old {};
      // A signal the caller chose to ignore stays ignored.
      if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
      struct sigaction act {};
      act.sa_handler = remove_temporaries;
      ::sigemptyset(&act.sa_mask);
      ::sigaction(sig, &act, nullptr);
    }
  });
  if (name.size() >= sizeof temp_names[0]) return -1;
  std::lock_guard lock(temp_mutex);
  for (int i = 0; i < temp_slots; ++i)
    if (temp_used[i] == 0) {
      std::memcpy(temp_names[i], name.c_str(), name.size() + 1);
      // The name is whole before the handler can see its slot in use.
      std::atomic_signal_fence(std::memory_order_release);
      temp_used[i] = 1;
      return i;
    }
  return -1;
}

void forget_temporary(int slot) {
  if (slot < 0) return;
  std::lock_guard lock(temp_mutex);
  temp_used[slot] = 0;
}

}  // namespace

// weakly_canonical alone stops at a link whose target does not exist yet, so two outputs naming one
// new file through such a link would look different: links are followed one by one first.
fs::path write_target(const fs::path& p, std::error_code& ec) {
  fs::path link = p;
  for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(link, ec)); ++hops) {
    const fs::path next = fs::read_symlink(link, ec);
    if (ec) break;
    link = next.is_absolute() ? next : link.parent_path() / next;
  }
  ec.clear();
  return resolved(link, ec);
}

cleanup_signals_held::cleanup_signals_held() {
  sigset_t held;
  ::sigemptyset(&held);
  for (const int sig : cleanup_signals) ::sigaddset(&held, sig);
  ::pthread_sigmask(SIG_BLOCK, &held, &old_);
}

int create_registered(const std::string& prefix, bool directory, std::optional<removed_on_signal>& guard,
                      std::string& path) {
  static constexpr char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  thread_local std::mt19937_64 rng{std::random_device{}() ^
                                   static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count())};
  const cleanup_signals_held held;
  for (int attempt = 0; attempt < 100; ++attempt) {
    path = prefix;
    for (int i = 0; i < 12; ++i) path += letters[rng() % (sizeof letters - 1)];
    guard.emplace(path);
    const int made = directory ? ::mkdir(path.c_str(), 0700) : ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (made >= 0) return made;
    const int err = errno;
    guard.reset();
    errno = err;
    if (err != EEXIST) return -1;
  }
  return -1;
}

cleanup_signals_held::~cleanup_signals_held() { ::pthread_sigmask(SIG_SETMASK, &old_, nullptr); }

removed_on_signal::removed_on_signal(const fs::path& path) : slot_(remember_temporary(path.string())) {}

removed_on_signal::~removed_on_signal() { forget_temporary(slot_); }

atomic_output_file::atomic_output_file(fs::path final_path) : final_(std::move(final_path)) {
  const fs::path name = final_.filename();
  if (name.empty() || name == "." || name == "..")
    throw io_error(error_kind::cant_create, final_, "cannot create: not a file name");
  std::error_code ec;
  if (fs::is_directory(final_, ec))
    throw io_error(error_kind::cant_create, final_, "cannot create: is a directory");
  // A device or pipe is written in place. Asked of the path itself, so that the kernel follows its
  // links: /dev/stdout's ends in a /proc link to "pipe:[N]", which no path names.
  const fs::file_status existing = fs::status(final_, ec);
  if (fs::exists(existing) && !fs::is_regular_file(existing)) {
    fd_ = ::open(final_.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) throw_errno(error_kind::cant_create, final_, "cannot open", errno);
    temp_ = target_ = final_;
    return;
  }
  // A link is written through, not replaced: the temporary goes beside what it names.
  target_ = final_;
  if (fs::is_symlink(fs::symlink_status(final_, ec))) {
    std::error_code resolve_ec;
    fs::path linked = write_target(final_, resolve_ec);
    if (!resolve_ec) target_ = std::move(linked);
  }

  const fs::path dir = directory_of(target_);
  // Short enough that the temporary's name fits where the output's does (255 bytes).
  std::string stem = target_.filename().string();
  if (stem.size() > 200) stem.resize(200);
  std::string made;
  fd_ = create_registered((dir / ("." + stem + ".tmp-")).string(), false, on_signal_, made);
  if (fd_ >= 0) temp_ = made;
  if (fd_ < 0) {
    const int err = errno;
    // Some filesystems (procfs) also answer ENOENT, so check before blaming the directory.
    if (err == ENOENT && !fs::exists(dir, ec))
      throw io_error(error_kind::cant_create, final_,
                     "cannot create: directory " + dir.string() + " does not exist");
    throw_errno(error_kind::cant_create, final_, "cannot create", err);
  }
  ::fchmod(fd_, default_file_mode());
  // A replaced file's mode and owner go onto the temporary at commit(), not now: writers that reopen
  // the temporary by name (libsndfile, the plot script, the other ranks) need it writable till then.
  struct stat replaced {};
  if (::stat(target_.c_str(), &replaced) == 0 && S_ISREG(replaced.st_mode)) replaced_ = replaced;
}

atomic_output_file::~atomic_output_file() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temp_.empty() && !direct()) ::unlink(temp_.c_str());
}

void atomic_output_file::write(const void* data, std::size_t n) {
  if (fd_ < 0) throw std::logic_error("atomic_output_file::write after commit");
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    // Linux transfers at most ~2 GiB per call anyway; asking for less keeps
    // the loop honest on every platform.
    const ssize_t w = ::write(fd_, p, std::min<std::size_t>(n, std::size_t{1} << 30));
    if (w < 0) {
      if (errno == EINTR) continue;
      throw_errno(error_kind::io_failure, final_, "write failed", errno);
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

void atomic_output_file::commit() {
  if (fd_ < 0) throw std::logic_error("atomic_output_file::commit called twice");
  if (replaced_) {
    // The replaced file's permissions stand, and its owner where allowed (only root may give a file
    // away; otherwise the caller's ownership stands).
    ::fchmod(fd_, replaced_->st_mode & 07777);
    [[maybe_unused]] const int owned = ::fchown(fd_, replaced_->st_uid, replaced_->st_gid);
  }
  // fsync before rename: otherwise a crash can leave the new name pointing at
  // an empty file, which is worse than the old contents. Devices and pipes have
  // nothing to rename.
  if (!flush_to_storage(fd_, direct())) throw_errno(error_kind::io_failure, final_, "write failed", errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) throw_errno(error_kind::io_failure, final_, "write failed", errno);
  if (direct()) {
    committed_ = true;
    return;
  }
  if (::rename(temp_.c_str(), target_.c_str()) != 0)
    throw_errno(error_kind::cant_create, final_, "cannot replace", errno);
  committed_ = true;
  on_signal_.reset();
  sync_directory(directory_of(target_));
}

bool flush_to_storage(int fd, bool may_be_device) {
  return ::fsync(fd) == 0 || (may_be_device && (errno == EINVAL || errno == EROFS));
}

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  if (fs::equivalent(a, b, ec)) return true;
  std::error_code ec_a, ec_b;
  const fs::path ca = write_target(a, ec_a);
  const fs::path cb = write_target(b, ec_b);
  return !ec_a && !ec_b && ca == cb;
}

void refuse_same_file(const fs::path& input, const fs::path& output) {
  // A missing input is the problem to report (no input, 66), even where the output is spelled the same.
  std::error_code ec;
  if (!fs::exists(fs::status(input, ec))) (void)open_input(input);
  if (same_file(input, output))
    throw io_error(
        error_kind::cant_create, output,
        "output path is the same file as input " + input.string() + "; refusing to overwrite an input");
}

std::string extension_lower(const fs::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

input_file open_input(const fs::path& p) {
  std::error_code ec;
  const fs::file_status st = fs::status(p, ec);
  if (!fs::exists(st)) {
    throw_errno(error_kind::no_input, p, "cannot open", ec && ec.value() != ENOENT ? ec.value() : ENOENT);
  }
  if (fs::is_directory(st)) throw io_error(error_kind::no_input, p, "cannot open: is a directory");
  if (!fs::is_regular_file(st)) throw io_error(error_kind::no_input, p, "cannot open: not a regular file");

  input_file in;
  in.size = fs::file_size(p, ec);
  if (ec) throw_errno(error_kind::no_input, p, "cannot open", ec.value());
  errno = 0;
  in.stream.open(p, std::ios::binary);
  if (!in.stream) throw_errno(error_kind::no_input, p, "cannot open", errno ? errno : EIO);
  return in;
}

void read_exact(input_file& in, const fs::path& p, void* dst, std::size_t n) {
  in.stream.read(static_cast<char*>(dst), static_cast<std::streamsize>(n));
  const auto got = static_cast<std::size_t>(in.stream.gcount());
  if (got != n)
    throw io_error(error_kind::io_failure, p,
                   "read failed: got " + std::to_string(got) + " of " + std::to_string(n) +
                       " bytes (file changed while reading?)");
}

}  // namespace lookback::io
