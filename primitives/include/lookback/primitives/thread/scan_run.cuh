#pragma once
// A thread's run of consecutive items scanned in place after the run's prefix: the last step of every
// single-pass scan kernel, once the tile's and the thread's prefixes are known.
namespace lookback::thread {

/// Exclusive: each of the first `count` items becomes `running` combined with the items before it;
/// inclusive: with the items up to it. Items past `count` are left as they are.
template <bool Exclusive, int Items, class ItemRef, class T, class Op>
__device__ __forceinline__ void scan_run(ItemRef&& items, T running, Op op, int count = Items) {
#pragma unroll
  for (int k = 0; k < Items; ++k) {
    if (k < count) {
      if constexpr (Exclusive) {
        const T item = items[k];
        items[k] = running;
        running = op(running, item);
      } else {
        running = op(running, items[k]);
        items[k] = running;
      }
    }
  }
}

}  // namespace lookback::thread
