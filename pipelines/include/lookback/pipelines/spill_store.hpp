#pragma once
// Where an external sort parks its partitioned items between passes: host memory, or a temporary file
// in a directory the caller names (beside the output). The file is unlinked as soon as it is opened,
// so it disappears when the store goes, whatever ends the run: a failure, an exception, Ctrl-C or a
// kill. Its room is reserved up front, so a disk too small says so before any work is done.
// Also: views of a part of a source or a sink, for the buckets an external sort splits again.
#include <lookback/pipelines/chunk_plan.hpp>
#include <lookback/pipelines/sink.hpp>
#include <lookback/pipelines/source.hpp>
#include <lookback/pipelines/stream_error.hpp>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <new>
#include <string>

#include <fcntl.h>
#include <unistd.h>

namespace lookback::pipelines {

/// Items [first, first + count) of `base`, numbered from zero.
class source_range final : public source {
 public:
  source_range(source& base, std::int64_t first, std::int64_t count) : base_(base), first_(first), count_(count) {}
  std::int64_t size() const override { return count_; }
  std::size_t item_bytes() const override { return base_.item_bytes(); }
  void read(std::int64_t first, std::int64_t count, void* dst) override { base_.read(first_ + first, count, dst); }
  const void* host_items() const override {
    const auto* items = static_cast<const std::byte*>(base_.host_items());
    return items == nullptr ? nullptr : items + static_cast<std::size_t>(first_) * base_.item_bytes();
  }

 private:
  source& base_;
  std::int64_t first_, count_;
};

/// `base` from its item `first` on, numbered from zero.
class sink_range final : public sink {
 public:
  sink_range(sink& base, std::int64_t first, std::size_t item_bytes) : base_(base), first_(first), item_bytes_(item_bytes) {}
  void write(std::int64_t first, std::int64_t count, const void* src) override { base_.write(first_ + first, count, src); }
  void* host_items() const override {
    auto* items = static_cast<std::byte*>(base_.host_items());
    return items == nullptr ? nullptr : items + static_cast<std::size_t>(first_) * item_bytes_;
  }

 private:
  sink& base_;
  std::int64_t first_;
  std::size_t item_bytes_;
};

/// `items` items of `item_bytes`, written at any offset and read back.
/// Where a spill file goes when no one names a place: $TMPDIR, else /tmp.
inline std::filesystem::path default_spill_directory() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
}

class spill_store {
 public:
  spill_store(const spill_store&) = delete;
  spill_store& operator=(const spill_store&) = delete;
  ~spill_store() {
    if (fd_ >= 0) ::close(fd_);
  }

  static std::unique_ptr<spill_store> in_host_memory(std::int64_t items, std::size_t item_bytes) {
    std::unique_ptr<spill_store> s(new spill_store);
    const std::size_t bytes = static_cast<std::size_t>(items) * item_bytes;
    s->memory_.reset(new (std::nothrow) std::byte[bytes > 0 ? bytes : 1]);  // left uninitialised: every item is written
    if (!s->memory_)
      throw stream_error(stream_error::kind::budget, "cannot allocate " + size_text(bytes) + " of host memory to spill into");
    s->source_ = std::make_unique<host_source>(s->memory_.get(), items, item_bytes);
    s->sink_ = std::make_unique<host_sink>(s->memory_.get(), item_bytes);
    return s;
  }

  /// A temporary file in `directory`, already unlinked, with room for every item reserved.
  static std::unique_ptr<spill_store> in_file(const std::filesystem::path& directory, std::int64_t items,
                                              std::size_t item_bytes) {
    std::unique_ptr<spill_store> s(new spill_store);
    const std::string where = "spill file in " + directory.string();
    s->fd_ = ::open(directory.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (s->fd_ < 0) {  // file systems without O_TMPFILE: a named file, unlinked at once
      std::string name = (directory / ".lookback-spill-XXXXXX").string();
      s->fd_ = ::mkostemp(name.data(), O_CLOEXEC);
      if (s->fd_ < 0)
        throw stream_error(stream_error::kind::write, where + ": cannot create: " + std::string(std::strerror(errno)));
      ::unlink(name.c_str());
    }
    const auto bytes = static_cast<off_t>(static_cast<std::size_t>(items) * item_bytes);
    if (bytes > 0) {
      const int e = ::posix_fallocate(s->fd_, 0, bytes);
      if (e != 0 && e != EOPNOTSUPP && e != EINVAL)
        throw stream_error(stream_error::kind::write,
                           where + ": cannot reserve " + size_text(static_cast<std::size_t>(bytes)) + ": " + std::strerror(e));
    }
    s->source_ = std::make_unique<file_source>(s->fd_, where, 0, items, item_bytes);
    s->sink_ = std::make_unique<file_sink>(s->fd_, where, 0, item_bytes);
    return s;
  }

  source& as_source() { return *source_; }
  sink& as_sink() { return *sink_; }
  [[nodiscard]] bool in_host() const { return fd_ < 0; }

 private:
  spill_store() = default;
  std::unique_ptr<std::byte[]> memory_;
  int fd_ = -1;
  std::unique_ptr<source> source_;
  std::unique_ptr<sink> sink_;
};

}  // namespace lookback::pipelines
