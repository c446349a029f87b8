#pragma once
// Tuning of the summed-area table kernels, kept apart from the code. H100, 8192^2 float: the earlier
// column pass (band totals, then a second read to write) made the table 0.519 ms, 2.83x a memcpy.
namespace lookback::policy {

/// Rows: threads and items per thread of the block scan along a row. Columns: a tile of 32 columns by
/// ColumnGroups * ColumnRows rows, each thread ColumnRows cells of one column in registers.
template <int RowThreads, int RowItemsPerThread, int ColumnGroups, int ColumnRows, int InitialDelayNs>
struct summed_area_config {
  static constexpr int row_threads = RowThreads;
  static constexpr int row_items_per_thread = RowItemsPerThread;
  static constexpr int column_groups = ColumnGroups;
  static constexpr int column_rows = ColumnRows;
  static constexpr int column_chunk = ColumnGroups * ColumnRows;
  static constexpr int initial_delay_ns = InitialDelayNs;
};

struct summed_area : summed_area_config<256, 8, 8, 16, 0> {};

}  // namespace lookback::policy
