#pragma once
// Where a streamed run's output items go, as each chunk's come back from the device: a host array or
// a file written with pwrite at the items' offset. write() is called from the pipeline's writer
// thread, in item order.
#include <lookback/pipelines/stream_error.hpp>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include <unistd.h>

namespace lookback::pipelines {

class sink {
 public:
  virtual ~sink() = default;
  /// Items [first, first + count) from src; throws stream_error(kind::write) naming the sink.
  virtual void write(std::int64_t first, std::int64_t count, const void* src) = 0;
  /// Where the items go when that is host memory: the pipeline then copies each chunk's output there
  /// from the device directly, with no staging and no write().
  [[nodiscard]] virtual void* host_items() const { return nullptr; }
};

class host_sink final : public sink {
 public:
  host_sink(void* items, std::size_t item_bytes) : items_(static_cast<std::byte*>(items)), item_bytes_(item_bytes) {}
  void write(std::int64_t first, std::int64_t count, const void* src) override {
    std::memcpy(items_ + static_cast<std::size_t>(first) * item_bytes_, src, static_cast<std::size_t>(count) * item_bytes_);
  }
  void* host_items() const override { return items_; }

 private:
  std::byte* items_;
  std::size_t item_bytes_;
};

/// Items at byte `offset` on of an open file (after a header the caller writes). The descriptor stays
/// the caller's, who also decides what becomes of the file when a write fails.
class file_sink final : public sink {
 public:
  file_sink(int fd, std::string name, std::uint64_t offset, std::size_t item_bytes)
      : fd_(fd), name_(std::move(name)), offset_(offset), item_bytes_(item_bytes) {}
  void write(std::int64_t first, std::int64_t count, const void* src) override {
    const auto* in = static_cast<const std::byte*>(src);
    std::uint64_t at = offset_ + static_cast<std::uint64_t>(first) * item_bytes_;
    std::size_t left = static_cast<std::size_t>(count) * item_bytes_;
    while (left > 0) {
      const ssize_t put = ::pwrite(fd_, in, left, static_cast<off_t>(at));
      if (put < 0 && errno == EINTR) continue;
      if (put <= 0)
        throw stream_error(stream_error::kind::write,
                           name_ + ": write failed: " + (put < 0 ? std::string(std::strerror(errno)) : "no progress") +
                               " at byte " + std::to_string(at) + ", items " + std::to_string(first) + ".." +
                               std::to_string(first + count - 1));
      in += put;
      at += static_cast<std::uint64_t>(put);
      left -= static_cast<std::size_t>(put);
    }
  }

 private:
  int fd_;
  std::string name_;
  std::uint64_t offset_;
  std::size_t item_bytes_;
};

}  // namespace lookback::pipelines
