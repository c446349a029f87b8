#include "cli/progress_bar.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>

namespace lookback::cli {
namespace {
constexpr int bar_width = 40;
}

progress_bar::progress_bar(std::string label, std::int64_t total, bool wanted)
    : label_(std::move(label)), total_(total), shown_(wanted && total > 0 && ::isatty(STDERR_FILENO) == 1) {}

progress_bar::~progress_bar() {
  if (shown_ && last_percent_ >= 0) std::fprintf(stderr, "\r%*s\r", static_cast<int>(label_.size()) + bar_width + 10, "");
}

void progress_bar::update(std::int64_t done) {
  if (!shown_) return;
  const int percent = static_cast<int>(std::min<std::int64_t>(100, done * 100 / total_));
  if (percent == last_percent_) return;
  last_percent_ = percent;
  const int filled = percent * bar_width / 100;
  std::fprintf(stderr, "\r%s [%s%s] %3d%%", label_.c_str(), std::string(static_cast<std::size_t>(filled), '#').c_str(),
               std::string(static_cast<std::size_t>(bar_width - filled), ' ').c_str(), percent);
  std::fflush(stderr);
}

}  // namespace lookback::cli
