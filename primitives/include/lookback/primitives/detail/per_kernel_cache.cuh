#pragma once
// Host-side facts about a kernel on a device (how many of its blocks fit, whether it may launch
// dependent, an attribute set once) are found with driver queries on the first call and kept: the
// functions that need them run on hot paths.
#include <lookback/primitives/error.cuh>

#include <map>
#include <mutex>
#include <tuple>

namespace lookback::detail {

/// `find(device)`'s answer for `kernel` on the current device and the two further key values `a` and
/// `b`, computed once under a lock and cached by each call site.
template <class Value, class Kernel, class Find>
Value cached_per_kernel(Kernel kernel, int a, int b, Find&& find) {
  static std::mutex mutex;
  static std::map<std::tuple<const void*, int, int, int>, Value> cache;
  int device = 0;
  LOOKBACK_CUDA_TRY(cudaGetDevice(&device));
  const auto key = std::make_tuple(reinterpret_cast<const void*>(kernel), device, a, b);
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = cache.find(key); it != cache.end()) return it->second;
  return cache[key] = find(device);
}

}  // namespace lookback::detail
