#pragma once
// Kernels whose best tiles depend on the input's size keep two policies, `small` and `large`, and the
// size up to which `small` runs (`small_max_items`). One place picks between them.
#include <cstdint>
#include <type_traits>

namespace lookback::detail {

/// Calls f(Policies::small{}) for up to Policies::small_max_items items, else f(Policies::large{});
/// where the two are the same type, only that one is instantiated.
template <class Policies, class F>
void with_size_policy(std::int64_t num_items, F&& f) {
  if constexpr (!std::is_same_v<typename Policies::small, typename Policies::large>) {
    if (num_items > Policies::small_max_items) {
      f(typename Policies::large{});
      return;
    }
  }
  f(typename Policies::small{});
}

}  // namespace lookback::detail
