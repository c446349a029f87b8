#pragma once
// `lookback ladder --plot FILE.png`: the table drawn by scripts/plot_ladder.py (matplotlib), which the
// command finds and checks before the ladder's minutes of work, then feeds the table's JSON.
#include "io/atomic_file.hpp"

#include <string>

namespace lookback::cli {

struct ladder_plotter {
  std::string python;  // an interpreter that imports matplotlib
  std::string script;  // plot_ladder.py
};

/// The plotter, or cli_error (exit 69) naming what is missing. LOOKBACK_PYTHON and
/// LOOKBACK_PLOT_SCRIPT override the search (python3 on PATH, then /usr/bin/python3; the script
/// installed beside the binary in ../share/lookback, then the source tree's scripts/).
ladder_plotter find_ladder_plotter();

/// Draws `table_json` into `png`, committed (renamed into place) once the script succeeds.
void draw_ladder_plot(const ladder_plotter& plotter, const std::string& table_json, io::atomic_output_file& png);

}  // namespace lookback::cli
