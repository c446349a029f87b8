#include "cli/bar_chart.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

namespace lookback::cli {

void print_bar_chart(std::ostream& out, const std::vector<std::uint64_t>& counts, double lower, double upper,
                     int rows, int width) {
  const std::size_t bins = counts.size();
  if (bins == 0) return;
  const std::size_t per_row = (bins + static_cast<std::size_t>(rows) - 1) / static_cast<std::size_t>(rows);
  std::vector<std::uint64_t> grouped;
  for (std::size_t first = 0; first < bins; first += per_row) {
    std::uint64_t total = 0;
    for (std::size_t i = first; i < std::min(bins, first + per_row); ++i) total += counts[i];
    grouped.push_back(total);
  }
  const std::uint64_t peak = std::max<std::uint64_t>(1, *std::max_element(grouped.begin(), grouped.end()));
  const double bin_width = (upper - lower) / static_cast<double>(bins);
  for (std::size_t row = 0; row < grouped.size(); ++row) {
    const double from = lower + bin_width * static_cast<double>(row * per_row);
    const double to = lower + bin_width * static_cast<double>(std::min(bins, (row + 1) * per_row));
    const int length = static_cast<int>(static_cast<double>(grouped[row]) / static_cast<double>(peak) * width + 0.5);
    char label[64];
    std::snprintf(label, sizeof label, "[%11.5g, %11.5g) ", from, to);
    out << label << std::string(static_cast<std::size_t>(length), '#') << std::string(static_cast<std::size_t>(width - length), ' ')
        << " " << grouped[row] << "\n";
  }
}

}  // namespace lookback::cli
