// The CPU references of the image operations (image_ops.hpp).
#include "typed/box_mean.hpp"
#include "typed/image_ops.hpp"
#include "typed/image_visit.hpp"

#include <lookback/algorithms/cpu/summed_area_table.hpp>
#include <lookback/primitives/cpu/convolution.hpp>

#include <algorithm>
#include <vector>

namespace lookback::typed {

bool is_filter_type(io::dtype type) { return io::is_floating(type); }

bool is_accumulator(io::dtype type) {
  return is_filter_type(type) || type == io::dtype::uint32 || type == io::dtype::uint64;
}

void convolve2d_cpu(io::dtype type, const void* in, void* out, int height, int width, const mask_view& mask,
                    boundary b) {
  visit_filter_type(type, [&](auto zero) {
    using T = decltype(zero);
    const auto* x = static_cast<const T*>(in);
    const auto* m = static_cast<const T*>(mask.taps);
    const std::vector<long double> y =
        cpu::correlate2d(std::vector<T>(x, x + std::int64_t{height} * width), height, width,
                         std::vector<T>(m, m + mask.height * mask.width), mask.height, mask.width, b);
    std::transform(y.begin(), y.end(), static_cast<T*>(out), [](long double v) { return static_cast<T>(v); });
  });
}

io::dtype table_input_type(io::dtype pixels, io::dtype acc) {
  return pixels == io::dtype::uint8 || pixels == io::dtype::uint16 ? pixels : acc;
}

void summed_area_table_cpu(io::dtype in, io::dtype acc, const void* plane, void* table, int height, int width) {
  visit_table_input(in, acc, [&](auto in_zero, auto acc_zero) {
    using In = decltype(in_zero);
    using Acc = decltype(acc_zero);
    const std::vector<Acc> t = cpu::summed_area_table<Acc>(static_cast<const In*>(plane), height, width);
    std::copy(t.begin(), t.end(), static_cast<Acc*>(table));
  });
}

void box_mean_cpu(io::dtype acc, io::dtype out_type, const void* table, void* out, int height, int width, int radius) {
  visit_accumulator(acc, [&](auto acc_zero) {
    using Acc = decltype(acc_zero);
    visit_filter_type(out_type, [&](auto out_zero) {
      using Out = decltype(out_zero);
      for (int r = 0; r < height; ++r)
        for (int c = 0; c < width; ++c)
          static_cast<Out*>(out)[std::int64_t{r} * width + c] =
              static_cast<Out>(box_mean_at(static_cast<const Acc*>(table), height, width, r, c, radius));
    });
  });
}

}  // namespace lookback::typed
