#include "cli/shared_output.hpp"

#include "cli/cli_error.hpp"
#include "cli/exit_codes.hpp"
#include "io/atomic_file.hpp"
#include "io/io_error.hpp"

#include <lookback/pipelines/source.hpp>

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

namespace lookback::cli {

shared_output::shared_output(launch& l, const std::filesystem::path& path, io::dtype type,
                             const std::vector<std::int64_t>& shape, bool verify)
    : launch_(l), path_(path), item_bytes_(io::dtype_size(type)) {
  l.on_root([&] {
    root_.emplace(path, type, shape);
    // --verify across ranks reads the written result back (read_back), which a device or pipe cannot give.
    if (verify && l.active() && root_->direct())
      throw cli_error(exit_code::usage, path.string() + ": --verify with --gpus or --distributed reads the output back; "
                                                        "a device or pipe cannot be read back, so write to a file");
  });
  // The name and the header's size travel as one line each.
  const std::string shared =
      l.from_root(root_ ? root_->temp_path().string() + "\n" + std::to_string(root_->header_bytes()) : std::string());
  const std::size_t split = shared.rfind('\n');
  temp_ = shared.substr(0, split);
  header_bytes_ = static_cast<std::size_t>(std::stoull(shared.substr(split + 1)));
  l.on_others([&] {
    fd_ = ::open(temp_.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0)
      throw io::io_error(io::error_kind::cant_create, path_,
                         "cannot open rank 0's temporary " + temp_ + ": " + std::strerror(errno) +
                             " (the ranks must share the output folder's file system)");
  });
}

shared_output::~shared_output() {
  if (fd_ >= 0) ::close(fd_);
}

pipelines::file_sink shared_output::sink() const {
  if (root_) return root_->sink();
  return {fd_, path_.string(), header_bytes_, item_bytes_};
}

void shared_output::finish_writes() {
  launch_.on_others([&] {
    const int fd = fd_;
    fd_ = -1;
    // The root's temporary, or the device (-o /dev/null) it writes in place.
    const bool flushed = io::flush_to_storage(fd, true);
    const int flush_errno = errno;
    if (!flushed || ::close(fd) != 0)
      throw io::io_error(io::error_kind::io_failure, path_,
                         std::string("flushing this rank's part failed: ") + std::strerror(flushed ? errno : flush_errno));
  });
}

void shared_output::commit(const std::vector<std::int64_t>& shape) { root_->commit(shape); }

void shared_output::read_back(std::int64_t first, std::int64_t count, void* dst) const {
  if (count == 0) return;
  const int fd = ::open(temp_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw io::io_error(io::error_kind::io_failure, path_, "cannot read back the result: " + std::string(std::strerror(errno)));
  try {
    pipelines::file_source(fd, path_.string(), header_bytes_, first + count, item_bytes_).read(first, count, dst);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
}

}  // namespace lookback::cli
