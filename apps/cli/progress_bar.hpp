#pragma once
// A one-line progress bar on stderr for long runs, redrawn in place. Only a terminal sees it: logs,
// pipes and the tests' captured stderr keep the one-line error contract.
#include <cstdint>
#include <string>

namespace lookback::cli {

/// Inputs from this size on take seconds even from the page cache: the streamed commands show a bar.
inline constexpr std::uint64_t long_run_bytes = std::uint64_t{4} << 30;

class progress_bar {
 public:
  /// Draws nothing unless `wanted` and stderr is a terminal.
  progress_bar(std::string label, std::int64_t total, bool wanted);
  /// Clears the bar, also when an error unwinds past it, so that its message starts a clean line.
  ~progress_bar();
  progress_bar(const progress_bar&) = delete;
  progress_bar& operator=(const progress_bar&) = delete;

  void update(std::int64_t done);

 private:
  std::string label_;
  std::int64_t total_;
  bool shown_;
  int last_percent_ = -1;
};

}  // namespace lookback::cli
