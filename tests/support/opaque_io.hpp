#pragma once
// Host memory that the pipelines must treat as a file: no host_items(), so every copy goes through
// their reader's and writer's pinned staging (as a command's files do) and a spill cannot be the
// output itself.
#include <lookback/pipelines/sink.hpp>
#include <lookback/pipelines/source.hpp>

#include <cstddef>
#include <cstdint>

namespace lookback::test {

class opaque_source final : public pipelines::source {
 public:
  opaque_source(const void* items, std::int64_t n, std::size_t bytes) : inner_(items, n, bytes) {}
  std::int64_t size() const override { return inner_.size(); }
  std::size_t item_bytes() const override { return inner_.item_bytes(); }
  void read(std::int64_t first, std::int64_t count, void* dst) override { inner_.read(first, count, dst); }

 private:
  pipelines::host_source inner_;
};

class opaque_sink final : public pipelines::sink {
 public:
  opaque_sink(void* items, std::size_t bytes) : inner_(items, bytes) {}
  void write(std::int64_t first, std::int64_t count, const void* src) override { inner_.write(first, count, src); }

 private:
  pipelines::host_sink inner_;
};

}  // namespace lookback::test
