#pragma once
// An array command's output written by every rank of a launch: the root process creates the
// temporary (array_output: in the output's folder, renamed into place at the end), the other processes
// of an MPI launch open it by name (ranks on several hosts share that folder's file system), and every
// rank writes its items at their offsets with pwrite. Nothing is renamed into place unless every
// rank's writes were flushed and the root's check passed; otherwise the root's temporary goes and an
// existing output stays as it was.
#include "cli/array_files.hpp"
#include "cli/launch.hpp"

#include <lookback/pipelines/sink.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace lookback::cli {

class shared_output {
 public:
  /// Collective: `shape` is the largest the result can be (room for the .npy header). With `verify`
  /// across ranks the output must be one that can be read back: a device or pipe is refused (exit 64).
  shared_output(launch& l, const std::filesystem::path& path, io::dtype type, const std::vector<std::int64_t>& shape,
                bool verify);
  ~shared_output();
  shared_output(const shared_output&) = delete;
  shared_output& operator=(const shared_output&) = delete;

  /// This process's writer (the threads of --gpus share it: pwrite keeps no position).
  [[nodiscard]] pipelines::file_sink sink() const;
  /// Collective: every process flushes its writes and closes its descriptor.
  void finish_writes();
  /// The root, after finish_writes (inside launch::on_root, with its checks): renames the file into
  /// place with the result's real `shape`.
  void commit(const std::vector<std::int64_t>& shape);
  /// Items [first, first + count) of the result as written (the root, after finish_writes).
  void read_back(std::int64_t first, std::int64_t count, void* dst) const;

 private:
  launch& launch_;
  std::filesystem::path path_;
  std::optional<array_output> root_;
  std::string temp_;
  std::size_t header_bytes_ = 0;
  std::size_t item_bytes_;
  int fd_ = -1;  // the other processes' descriptor of the root's temporary
};

}  // namespace lookback::cli
