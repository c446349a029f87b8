#pragma once
// Tuning of the summed-area table kernels, kept apart from the code (not measured yet).
namespace lookback::policy {

template <int RowThreads, int RowItemsPerThread, int ColumnBands>
struct summed_area_config {
  static constexpr int row_threads = RowThreads;
  static constexpr int row_items_per_thread = RowItemsPerThread;
  static constexpr int column_bands = ColumnBands;
};

struct summed_area : summed_area_config<256, 8, 32> {};

}  // namespace lookback::policy
