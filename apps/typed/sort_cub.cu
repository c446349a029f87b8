// Every key dtype of cub::DeviceRadixSort, keys alone and with 4- or 8-byte values, in both
// directions, the sort's reference, compiled once. CUB takes 64-bit item counts here, like ours.
#include "typed/sort_visit.hpp"

#include <lookback/primitives/error.cuh>

#include <cub/device/device_radix_sort.cuh>

namespace lookback::typed::detail {

void sort_cub(const sort_spec& spec, void* d_temp, std::size_t& temp_bytes, const void* d_keys_in, void* d_keys_out,
              const void* d_values_in, void* d_values_out, std::int64_t n, cudaStream_t stream) {
  const int begin = spec.begin_bit, end = spec.end_bit;
  visit_sort_arrays(spec, d_keys_in, d_keys_out, d_values_in, d_values_out,
                    [&](auto keys_in, auto keys_out, auto values_in, auto values_out) {
                      using cub::DeviceRadixSort;
                      if constexpr (no_values<decltype(values_in)>) {
                        if (spec.descending)
                          LOOKBACK_CUDA_TRY(DeviceRadixSort::SortKeysDescending(d_temp, temp_bytes, keys_in, keys_out,
                                                                                n, begin, end, stream));
                        else
                          LOOKBACK_CUDA_TRY(
                              DeviceRadixSort::SortKeys(d_temp, temp_bytes, keys_in, keys_out, n, begin, end, stream));
                      } else if (spec.descending) {
                        LOOKBACK_CUDA_TRY(DeviceRadixSort::SortPairsDescending(d_temp, temp_bytes, keys_in, keys_out,
                                                                               values_in, values_out, n, begin, end,
                                                                               stream));
                      } else {
                        LOOKBACK_CUDA_TRY(DeviceRadixSort::SortPairs(d_temp, temp_bytes, keys_in, keys_out, values_in,
                                                                     values_out, n, begin, end, stream));
                      }
                    });
}

}  // namespace lookback::typed::detail
