#pragma once
// A terminal bar chart of a histogram: bins grouped so the chart fits `rows` lines.
#include <cstdint>
#include <ostream>
#include <vector>

namespace lookback::cli {

void print_bar_chart(std::ostream& out, const std::vector<std::uint64_t>& counts, double lower, double upper,
                     int rows = 32, int width = 50);

}  // namespace lookback::cli
