#pragma once
// Where a streamed run's items come from: a host array (pinned or pageable) or a file read with
// pread at an offset, chunk by chunk, never the whole file in host memory. read() may be called from
// a thread of the pipeline's own; each call reads one chunk into host memory the pipeline owns.
#include <lookback/pipelines/stream_error.hpp>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <exception>
#include <string>
#include <thread>
#include <stdexcept>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace lookback::pipelines {

class source {
 public:
  virtual ~source() = default;
  [[nodiscard]] virtual std::int64_t size() const = 0;        // items
  [[nodiscard]] virtual std::size_t item_bytes() const = 0;
  /// Items [first, first + count) into dst; throws stream_error(kind::read) naming the source.
  virtual void read(std::int64_t first, std::int64_t count, void* dst) = 0;
  /// The items when they already lie in host memory: the pipeline then copies chunks to the device
  /// straight from there (at the link's full speed from pinned memory, through the driver's staging
  /// from pageable memory) instead of reading them into its own staging first.
  [[nodiscard]] virtual const void* host_items() const { return nullptr; }
};

/// Refuses a source whose items are not of the type a streamed call reads: the chunks' device slots are
/// sized by the source's items, the kernels read the type's.
inline void check_item_bytes(const source& s, std::size_t type_bytes, const std::string& who, const char* what) {
  if (s.item_bytes() != type_bytes)
    throw std::invalid_argument(who + ": " + what + " are items of " + std::to_string(s.item_bytes()) +
                                " bytes, the type's are " + std::to_string(type_bytes));
}

/// Items already in host memory, copied to the device straight from where they lie: pinned arrays
/// (cudaHostAlloc, cudaHostRegister) at the link's full speed, pageable ones at what the driver's own
/// staging reaches.
class host_source final : public source {
 public:
  host_source(const void* items, std::int64_t count, std::size_t item_bytes)
      : items_(static_cast<const std::byte*>(items)), count_(count), item_bytes_(item_bytes) {}
  std::int64_t size() const override { return count_; }
  std::size_t item_bytes() const override { return item_bytes_; }
  void read(std::int64_t first, std::int64_t count, void* dst) override {
    std::memcpy(dst, items_ + static_cast<std::size_t>(first) * item_bytes_, static_cast<std::size_t>(count) * item_bytes_);
  }
  const void* host_items() const override { return items_; }

 private:
  const std::byte* items_;
  std::int64_t count_;
  std::size_t item_bytes_;
};

/// `count` items stored from byte `offset` of an open file (a .npy file's data follows its header).
/// The descriptor stays the caller's. A read that comes up short means the file shrank under us.
class file_source final : public source {
 public:
  file_source(int fd, std::string name, std::uint64_t offset, std::int64_t count, std::size_t item_bytes)
      : fd_(fd), name_(std::move(name)), offset_(offset), count_(count), item_bytes_(item_bytes) {}
  std::int64_t size() const override { return count_; }
  std::size_t item_bytes() const override { return item_bytes_; }
  /// Large chunks are read by several threads at once: one reader alone copies from the page cache at
  /// about 7.5 GB/s (one dd on the H100 machine), below the link and what the GPU consumes.
  void read(std::int64_t first, std::int64_t count, void* dst) override {
    constexpr std::int64_t part_bytes = std::int64_t{8} << 20;
    constexpr int max_parts = 4;
    const std::int64_t bytes = count * static_cast<std::int64_t>(item_bytes_);
    const int parts = static_cast<int>(std::min<std::int64_t>(max_parts, std::max<std::int64_t>(1, bytes / part_bytes)));
    if (parts == 1) return read_bytes(first, count, 0, bytes, static_cast<std::byte*>(dst));
    // Shares of whole pages, rounded up from bytes / parts so that they cover every byte; the last
    // part ends at the last byte whatever the rounding.
    const std::int64_t share = ((bytes + parts - 1) / parts + 4095) / 4096 * 4096;
    const auto read_part = [&](int p) {
      const std::int64_t from = std::min(bytes, p * share);
      const std::int64_t to = p == parts - 1 ? bytes : std::min(bytes, (p + 1) * share);
      read_bytes(first, count, from, to - from, static_cast<std::byte*>(dst) + from);
    };
    std::vector<std::thread> helpers;
    std::vector<std::exception_ptr> failures(static_cast<std::size_t>(parts));
    try {
      for (int p = 1; p < parts; ++p)
        helpers.emplace_back([&, p] {
          try {
            read_part(p);
          } catch (...) {
            failures[static_cast<std::size_t>(p)] = std::current_exception();
          }
        });
      read_part(0);
    } catch (...) {
      failures[0] = std::current_exception();  // a thread that could not start, or part 0's read
    }
    for (std::thread& t : helpers) t.join();
    for (const std::exception_ptr& e : failures)
      if (e) std::rethrow_exception(e);
  }

 private:
  /// `length` bytes from byte `skip` of items [first, first + count) into out.
  void read_bytes(std::int64_t first, std::int64_t count, std::int64_t skip, std::int64_t length, std::byte* out) const {
    std::uint64_t at = offset_ + static_cast<std::uint64_t>(first) * item_bytes_ + static_cast<std::uint64_t>(skip);
    std::size_t left = static_cast<std::size_t>(length);
    while (left > 0) {
      const ssize_t got = ::pread(fd_, out, left, static_cast<off_t>(at));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0)
        throw stream_error(stream_error::kind::read,
                           name_ + ": " + (got < 0 ? "read failed: " + std::string(std::strerror(errno))
                                                   : "file ended early (truncated while being read)") +
                               " at byte " + std::to_string(at) + ", items " + std::to_string(first) + ".." +
                               std::to_string(first + count - 1));
      out += got;
      at += static_cast<std::uint64_t>(got);
      left -= static_cast<std::size_t>(got);
    }
  }

  int fd_;
  std::string name_;
  std::uint64_t offset_;
  std::int64_t count_;
  std::size_t item_bytes_;
};

}  // namespace lookback::pipelines
