#pragma once
// The reduce, scan and convolution ladders (lookback/primitives/ladder/) for element types known only
// at run time, every (rung, dtype) instantiation compiled once, in ladder_ops.cu. A ladder's rows are its rungs in
// order, then CUB. Runners follow CUB's two-phase temporary storage convention (a null d_temp stores
// the size, always > 0) and never synchronise the host.
#include "io/dtype.hpp"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lookback::typed {

enum class ladder_family { reduce, scan, conv1d, conv2d };
bool is_convolution(ladder_family family);
std::optional<ladder_family> parse_ladder_family(std::string_view name);
std::string_view ladder_family_name(ladder_family family);

/// The rungs' names in order ("1 interleaved, divergent", ...); rung k (1-based) is names[k - 1].
std::vector<std::string> reduce_ladder_names();
std::vector<std::string> scan_ladder_names();
std::vector<std::string> ladder_names(ladder_family family);

/// One row of a ladder table: rung `variant` (1-based), or CUB's sum (cub::DeviceReduce::Sum,
/// cub::DeviceScan::InclusiveSum) when `cub` is set.
struct ladder_row {
  std::string name;
  int variant = 0;
  bool cub = false;
};
/// Every rung of the family, then the CUB row where CUB has the operation (not for convolutions).
std::vector<ladder_row> ladder_rows(ladder_family family);

/// Sum of n elements of `type` at d_in into the one element at d_out (0 for n == 0).
void reduce_ladder(int variant, io::dtype type, void* d_temp, std::size_t& temp_bytes, const void* d_in, void* d_out,
                   std::int64_t n, cudaStream_t stream);
/// Inclusive sum scan of n elements of `type` from d_in into d_out.
void scan_ladder(int variant, io::dtype type, void* d_temp, std::size_t& temp_bytes, const void* d_in, void* d_out,
                 std::int64_t n, cudaStream_t stream);

/// The row's reduction (family reduce: one output element) or inclusive scan (family scan: n output
/// elements), rung or CUB.
void run_ladder_row(ladder_family family, const ladder_row& row, io::dtype type, void* d_temp, std::size_t& temp_bytes,
                    const void* d_in, void* d_out, std::int64_t n, cudaStream_t stream);

/// Bytes a run of the family moves through DRAM at least: n elements read, then one element (reduce)
/// or n elements (scan, convolutions) written. The ladder tables' GB/s divide this by the time.
std::int64_t ladder_bytes_moved(ladder_family family, io::dtype type, std::int64_t n);

/// A convolution ladder's problem (float32 or float64, zero ghosts): conv1d filters `width` elements
/// with `mask` taps; conv2d a height x width image with a mask x mask mask. The mask (row-major) is
/// in host and device memory.
struct convolution_problem {
  int height = 1;
  std::int64_t width = 0;
  int mask = 9;
  const void* h_mask = nullptr;
  const void* d_mask = nullptr;
};
/// With mask_uploaded, the rungs that read the mask from constant memory find it there from an earlier
/// call of the same problem on this device (so that a timed call is the kernel's alone).
void run_convolution_row(ladder_family family, const ladder_row& row, io::dtype type, const convolution_problem& p,
                         const void* d_in, void* d_out, cudaStream_t stream, bool mask_uploaded = false);
/// The textbook's reduction in global loads that the row's tiling buys (tiling_reduction.hpp) for
/// the tile it uses; 1 for the untiled rungs.
double convolution_tiling_reduction(ladder_family family, const ladder_row& row, int mask);

}  // namespace lookback::typed
