// Every (rung, dtype) instantiation of the reduce, scan and convolution ladders, compiled once; CUB
// rows go through the existing typed CUB reduce and scan.
#include "typed/ladder_ops.hpp"

#include "typed/typed_ops.hpp"
#include "typed/visit.hpp"

#include <lookback/primitives/ladder/convolution_ladder.cuh>
#include <lookback/primitives/ladder/reduce_ladder.cuh>
#include <lookback/primitives/ladder/scan_ladder.cuh>

#include <stdexcept>
#include <string>

namespace lookback::typed {
namespace {

ladder::reduce_variant reduce_variant_of(int variant) {
  for (const ladder::reduce_variant v : ladder::reduce_variants)
    if (static_cast<int>(v) == variant) return v;
  throw std::invalid_argument("reduce ladder: no rung " + std::to_string(variant));
}

ladder::scan_variant scan_variant_of(int variant) {
  for (const ladder::scan_variant v : ladder::scan_variants)
    if (static_cast<int>(v) == variant) return v;
  throw std::invalid_argument("scan ladder: no rung " + std::to_string(variant));
}

}  // namespace

std::optional<ladder_family> parse_ladder_family(std::string_view name) {
  if (name == "reduce") return ladder_family::reduce;
  if (name == "scan") return ladder_family::scan;
  if (name == "conv1d") return ladder_family::conv1d;
  if (name == "conv2d") return ladder_family::conv2d;
  return std::nullopt;
}

std::string_view ladder_family_name(ladder_family family) {
  switch (family) {
    case ladder_family::reduce: return "reduce";
    case ladder_family::scan: return "scan";
    case ladder_family::conv1d: return "conv1d";
    case ladder_family::conv2d: return "conv2d";
  }
  return "?";
}

bool is_convolution(ladder_family family) {
  return family == ladder_family::conv1d || family == ladder_family::conv2d;
}

std::vector<std::string> reduce_ladder_names() {
  std::vector<std::string> names;
  for (const ladder::reduce_variant v : ladder::reduce_variants) names.emplace_back(ladder::name(v));
  return names;
}

std::vector<std::string> scan_ladder_names() {
  std::vector<std::string> names;
  for (const ladder::scan_variant v : ladder::scan_variants) names.emplace_back(ladder::name(v));
  return names;
}

std::vector<std::string> ladder_names(ladder_family family) {
  switch (family) {
    case ladder_family::reduce: return reduce_ladder_names();
    case ladder_family::scan: return scan_ladder_names();
    case ladder_family::conv1d:
      return {"1 basic (global mask)", "2 constant-memory mask", "3 tiled, halos in shared memory",
              "4 tiled, halos from the cache",
              "5 production (parameter mask, " + std::to_string(policy::convolution1d::outputs_per_thread) +
                  " outputs per thread)"};
    case ladder_family::conv2d: return {"1 basic (global mask)", "2 tiled, constant-memory mask", "3 production"};
  }
  return {};
}

std::vector<ladder_row> ladder_rows(ladder_family family) {
  std::vector<ladder_row> rows;
  int variant = 0;
  for (std::string& name : ladder_names(family)) rows.push_back({std::move(name), ++variant, false});
  if (family == ladder_family::reduce) rows.push_back({"CUB (cub::DeviceReduce::Sum)", 0, true});
  if (family == ladder_family::scan) rows.push_back({"CUB (cub::DeviceScan::InclusiveSum)", 0, true});
  return rows;
}

void reduce_ladder(int variant, io::dtype type, void* d_temp, std::size_t& temp_bytes, const void* d_in, void* d_out,
                   std::int64_t n, cudaStream_t stream) {
  const ladder::reduce_variant v = reduce_variant_of(variant);
  visit_numeric(type, [&](auto zero) {
    using T = decltype(zero);
    ladder::reduce_sum(v, static_cast<const T*>(d_in), n, static_cast<T*>(d_out), d_temp, temp_bytes, stream);
  });
}

void scan_ladder(int variant, io::dtype type, void* d_temp, std::size_t& temp_bytes, const void* d_in, void* d_out,
                 std::int64_t n, cudaStream_t stream) {
  const ladder::scan_variant v = scan_variant_of(variant);
  visit_numeric(type, [&](auto zero) {
    using T = decltype(zero);
    ladder::inclusive_scan_sum(v, static_cast<const T*>(d_in), n, static_cast<T*>(d_out), d_temp, temp_bytes, stream);
  });
}

void run_ladder_row(ladder_family family, const ladder_row& row, io::dtype type, void* d_temp, std::size_t& temp_bytes,
                    const void* d_in, void* d_out, std::int64_t n, cudaStream_t stream) {
  if (is_convolution(family)) throw std::invalid_argument("convolution rows run through run_convolution_row");
  if (family == ladder_family::reduce) {
    if (row.cub)
      reduce(implementation::cub, type, op_kind::sum, d_temp, temp_bytes, d_in, d_out, n, stream);
    else
      reduce_ladder(row.variant, type, d_temp, temp_bytes, d_in, d_out, n, stream);
    return;
  }
  if (row.cub) {
    const scan_spec spec{type, op_kind::sum, true, identity(type, op_kind::sum)};
    scan(implementation::cub, spec, d_temp, temp_bytes, d_in, d_out, n, stream);
  } else {
    scan_ladder(row.variant, type, d_temp, temp_bytes, d_in, d_out, n, stream);
  }
}

std::int64_t ladder_bytes_moved(ladder_family family, io::dtype type, std::int64_t n) {
  const auto size = static_cast<std::int64_t>(io::dtype_size(type));
  return n * size + (family == ladder_family::reduce ? size : n * size);
}

void run_convolution_row(ladder_family family, const ladder_row& row, io::dtype type, const convolution_problem& p,
                         const void* d_in, void* d_out, cudaStream_t stream, bool mask_uploaded) {
  const auto upload = mask_uploaded ? ladder::mask_upload::done : ladder::mask_upload::each_call;
  const auto run = [&](auto zero) {
    using T = decltype(zero);
    const auto* in = static_cast<const T*>(d_in);
    auto* out = static_cast<T*>(d_out);
    const auto* h_mask = static_cast<const T*>(p.h_mask);
    const auto* d_mask = static_cast<const T*>(p.d_mask);
    if (family == ladder_family::conv1d)
      ladder::convolve1d(static_cast<ladder::convolution1d_variant>(row.variant), in, out, p.width, h_mask, d_mask,
                         p.mask, stream, upload);
    else
      ladder::convolve2d(static_cast<ladder::convolution2d_variant>(row.variant), in, out, p.height,
                         static_cast<int>(p.width), h_mask, d_mask, p.mask, stream, upload);
  };
  if (row.variant < 1 || row.variant > static_cast<int>(ladder_names(family).size()))
    throw std::invalid_argument(std::string(ladder_family_name(family)) + " ladder: no rung " + std::to_string(row.variant));
  if (type == io::dtype::float32) return run(float{});
  if (type == io::dtype::float64) return run(double{});
  throw std::invalid_argument("the convolution ladders take float32 or float64");
}

double convolution_tiling_reduction(ladder_family family, const ladder_row& row, int mask) {
  if (family == ladder_family::conv1d) {
    if (row.variant == 3 || row.variant == 4) return ladder::tiling_reduction_1d(ladder::detail::block_threads, mask);
    if (row.variant == 5) return ladder::tiling_reduction_1d(policy::convolution1d::tile_outputs, mask);
    return 1.0;
  }
  if (row.variant == 2) return ladder::tiling_reduction_2d(ladder::conv2d_output_tile, mask);
  if (row.variant == 3) return ladder::tiling_reduction_2d(policy::convolution2d::tile_width, mask);
  return 1.0;
}

}  // namespace lookback::typed
