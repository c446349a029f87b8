#pragma once

#include <signal.h>
#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

namespace lookback::io {

// Holds off, while it lives, the signals on which registered temporaries are removed (Ctrl-C, a kill,
// a closed terminal, Ctrl-\, a write past the file-size limit): create a temporary and register it
// under one, so that no signal falls between.
class cleanup_signals_held {
 public:
  cleanup_signals_held();
  ~cleanup_signals_held();
  cleanup_signals_held(const cleanup_signals_held&) = delete;
  cleanup_signals_held& operator=(const cleanup_signals_held&) = delete;

 private:
  sigset_t old_;
};

// A scratch path removed if one of those signals ends the process while this guard lives, as
// atomic_output_file's temporary is: a file is unlinked, a directory removed once empty (register
// its files too). Removing it in the normal course stays its owner's job.
class removed_on_signal {
 public:
  explicit removed_on_signal(const std::filesystem::path& path);
  ~removed_on_signal();
  removed_on_signal(const removed_on_signal&) = delete;
  removed_on_signal& operator=(const removed_on_signal&) = delete;

 private:
  int slot_;
};

// Creates a file (open's O_EXCL, mode 0600; returns its descriptor) or, with `directory`, a directory
// (mode 0700; returns 0) named `prefix` and twelve random letters or digits, registered in `guard`
// before it exists: a signal taken by another thread (cleanup_signals_held holds them on this one
// only) then still finds it, and removing a name not yet made is harmless. `path` is the name made.
// On failure returns -1 with errno set, and `guard` is empty.
int create_registered(const std::string& prefix, bool directory, std::optional<removed_on_signal>& guard,
                      std::string& path);

// Writes a file so that readers only ever see the old contents or the complete
// new ones: data goes to a hidden temporary in the destination's directory (so
// the final rename stays within one filesystem and is atomic) and is renamed
// over the destination by commit().  Destroying the object without commit()
// deletes the temporary, so a failed run leaves no partial output behind; so does
// Ctrl-C (the signals cleanup_signals_held names unlink the temporaries still open,
// then end the process as they would have). A destination that is a symlink is written through:
// the temporary goes beside the file it names, which the rename replaces. One that
// exists and is not a regular file (/dev/null, a FIFO) is written directly, since a
// rename would replace the device or pipe itself; there temp_path() is that path.
// Errors throw io_error naming the destination path.
class atomic_output_file {
 public:
  explicit atomic_output_file(std::filesystem::path final_path);
  ~atomic_output_file();

  atomic_output_file(const atomic_output_file&) = delete;
  atomic_output_file& operator=(const atomic_output_file&) = delete;

  void write(const void* data, std::size_t n);
  void write(std::string_view s) { write(s.data(), s.size()); }

  // Flushes to stable storage and renames into place; call once, after the last write.
  void commit();

  const std::filesystem::path& path() const noexcept { return final_; }
  const std::filesystem::path& temp_path() const noexcept { return temp_; }
  // The temporary's descriptor, for writers that place data at offsets (pwrite) before commit().
  int descriptor() const noexcept { return fd_; }
  // Whether the output is a device or FIFO, written in place rather than through a temporary.
  [[nodiscard]] bool direct() const { return temp_ == target_; }

 private:
  std::filesystem::path final_;
  std::filesystem::path target_;  // final_, or the file it links to
  std::filesystem::path temp_;  // target_ itself for a device or FIFO, written directly
  int fd_ = -1;
  bool committed_ = false;
  std::optional<removed_on_signal> on_signal_;  // the temporary, till it is renamed into place
  std::optional<struct stat> replaced_;  // the file the output replaces, whose mode and owner it keeps
};

// fsync(fd), where a device or pipe, which may not sync at all (EINVAL, EROFS), counts as flushed when
// `may_be_device`. False, with errno set, when the data did not reach storage.
bool flush_to_storage(int fd, bool may_be_device);

// Where a write to p lands: p's links followed link by link (as open() would, up to its 40 hops), then
// made absolute with every existing link, "." and ".." resolved; ec set when that failed.
std::filesystem::path write_target(const std::filesystem::path& p, std::error_code& ec);

// Whether two paths name one file: the same inode (hard links, symlinks) or, for
// paths that do not exist yet, the same normalised spelling.
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

// Throws io_error(cant_create) when writing output would clobber input (same_file), and
// io_error(no_input) when the input does not exist.
void refuse_same_file(const std::filesystem::path& input, const std::filesystem::path& output);

// The extension including its dot, lower-cased: "data/X.NPY" -> ".npy", "a" -> "".
std::string extension_lower(const std::filesystem::path& p);

// A regular file opened for binary reading, with its size known up front so that
// readers can check a header's claims before allocating anything.
struct input_file {
  std::ifstream stream;
  std::uint64_t size = 0;
};

// Throws io_error(no_input) for a missing, non-regular or unreadable file.
input_file open_input(const std::filesystem::path& p);

// Reads exactly n bytes; callers have already checked n against in.size, so a
// short read is an I/O failure (or the file shrank underneath us), never bad data.
void read_exact(input_file& in, const std::filesystem::path& p, void* dst, std::size_t n);

}  // namespace lookback::io
