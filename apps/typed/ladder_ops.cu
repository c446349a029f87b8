// Every (rung, dtype) instantiation of the reduce and scan ladders, compiled once; CUB rows go through
// the existing typed CUB reduce and scan.
#include "typed/ladder_ops.hpp"

#include "typed/typed_ops.hpp"
#include "typed/visit.hpp"

#include <lookback/primitives/ladder/reduce_ladder.cuh>
#include <lookback/primitives/ladder/scan_ladder.cuh>

#include <stdexcept>

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
  return std::nullopt;
}

std::string_view ladder_family_name(ladder_family family) { return family == ladder_family::reduce ? "reduce" : "scan"; }

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
  return family == ladder_family::reduce ? reduce_ladder_names() : scan_ladder_names();
}

std::vector<ladder_row> ladder_rows(ladder_family family) {
  std::vector<ladder_row> rows;
  int variant = 0;
  for (std::string& name : ladder_names(family)) rows.push_back({std::move(name), ++variant, false});
  rows.push_back({family == ladder_family::reduce ? "CUB (cub::DeviceReduce::Sum)" : "CUB (cub::DeviceScan::InclusiveSum)",
                  0, true});
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

}  // namespace lookback::typed
