#include "cli/image_run.hpp"

#include "cli/cli_error.hpp"
#include "cli/device_memory.hpp"
#include "cli/exit_codes.hpp"
#include "cli/image_files.hpp"
#include "io/image.hpp"
#include "typed/box_mean.hpp"
#include "typed/compare.hpp"
#include "typed/gpu_timing.hpp"
#include "typed/image_ops.hpp"
#include "typed/image_visit.hpp"

#include <lookback/algorithms/cpu/summed_area_table.hpp>
#include <lookback/primitives/device_buffer.cuh>
#include <lookback/primitives/detail/temp_layout.cuh>
#include <lookback/primitives/stream.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <limits>
#include <type_traits>
#include <vector>

namespace lookback::cli {
namespace {

using bytes = std::vector<std::byte>;

struct plane_shape {
  int height = 0;
  int width = 0;
  int channels = 1;
  std::size_t pixels() const { return static_cast<std::size_t>(height) * static_cast<std::size_t>(width); }
};

plane_shape shape_of(const io::host_array& a) {
  return {static_cast<int>(io::image_height(a)), static_cast<int>(io::image_width(a)), io::image_channels(a)};
}

template <class F>
decltype(auto) visit_pixels(io::dtype type, F&& f) {
  switch (type) {
    case io::dtype::uint8: return f(std::uint8_t{});
    case io::dtype::uint16: return f(std::uint16_t{});
    default: return typed::visit_accumulator(type, f);  // uint32, uint64, float32, float64
  }
}

/// One channel of `a`, converted to `to`.
bytes plane_as(const io::host_array& a, int channel, io::dtype to) {
  const plane_shape s = shape_of(a);
  bytes plane(s.pixels() * io::dtype_size(to));
  visit_pixels(a.type, [&](auto from_zero) {
    using From = decltype(from_zero);
    visit_pixels(to, [&](auto to_zero) {
      using To = decltype(to_zero);
      auto* out = reinterpret_cast<To*>(plane.data());
      for (std::size_t i = 0; i < s.pixels(); ++i) out[i] = static_cast<To>(a.as<From>()[i * s.channels + channel]);
    });
  });
  return plane;
}

/// Writes one channel of `out` (same element type as the plane).
void put_plane(io::host_array& out, int channel, const bytes& plane) {
  const plane_shape s = shape_of(out);
  const std::size_t size = io::dtype_size(out.type);
  for (std::size_t i = 0; i < s.pixels(); ++i)
    std::memcpy(out.bytes.data() + (i * s.channels + channel) * size, plane.data() + i * size, size);
}

/// One plane through `work` on the GPU; with `timed`, adds the median kernel time to `ms`.
bytes run_plane_gpu(const cuda_stream& stream, const bytes& in, std::size_t out_bytes, std::size_t temp_bytes,
                    bool timed, float& ms, const std::function<void(const void* d_in, void* d_out, void* d_temp)>& work) {
  return within_device_memory(in.size() + out_bytes + temp_bytes, "one channel's input, output and temporary storage", [&] {
    const device_buffer<std::byte> d_in = to_device(in, stream);
    device_buffer<std::byte> d_out(out_bytes, stream);
    // Poisoned, so a pixel no kernel wrote cannot pass the check by holding an earlier channel's result.
    d_out.fill_bytes(0xAB);
    device_buffer<std::byte> d_temp(temp_bytes, stream);
    const auto run = [&] { work(d_in.data(), d_out.data(), d_temp.data()); };
    if (timed)
      ms += typed::median_time_ms(stream, run);
    else
      run();
    return to_host(d_out);
  });
}

/// Tracks the worst agreement between the GPU and the reference; the first disagreement throws.
class checker {
 public:
  checker(std::string what, const plane_shape& s) : what_(std::move(what)), shape_(s) {}

  template <class T>
  void add(int channel, std::size_t i, double reference, T actual, double tolerance) {
    const double difference = std::abs(static_cast<double>(actual) - reference);
    if (!typed::values_match<T>(reference, actual, tolerance))
      fail(channel, i, typed::format_value(reference), typed::format_value(actual), typed::format_value(tolerance));
    if (difference > check_.max_difference) check_.max_difference = difference, check_.tolerance_there = tolerance;
  }
  /// Integers compare exactly, in their own type.
  template <class T>
  void add_exact(int channel, std::size_t i, T reference, T actual) {
    if (reference != actual) fail(channel, i, typed::format_value(reference), typed::format_value(actual), "0");
  }

  image_check& result() { return check_; }

 private:
  [[noreturn]] void fail(int channel, std::size_t i, const std::string& reference, const std::string& actual,
                         const std::string& tolerance) const {
    std::string where = "(" + std::to_string(i / shape_.width) + ", " + std::to_string(i % shape_.width) + ")";
    if (shape_.channels > 1) where += " channel " + std::to_string(channel);
    throw cli_error(exit_code::software, "verify " + what_ + ": MISMATCH at pixel " + where + ": reference " +
                                             reference + ", lookback " + actual + " (tolerance " + tolerance + ")");
  }

  std::string what_;
  plane_shape shape_;
  image_check check_;
};

/// The common shape of the three operations: every channel converted to `in_type`, computed on the
/// chosen backend into `out_type`, and with `verify` run on the GPU and checked by `check`.
struct plane_op {
  io::dtype in_type;
  io::dtype out_type;
  std::size_t temp_bytes = 0;  // device scratch for the GPU work
  std::function<void(const void* in, void* out)> cpu;
  std::function<void(const void* d_in, void* d_out, void* d_temp, cudaStream_t stream)> gpu;
  std::function<void(int channel, const bytes& in, const bytes& gpu_out, checker& check)> check;
};

image_result run_planes(const io::host_array& pixels, const plane_op& op, backend be, bool verify,
                        const std::string& what) {
  const plane_shape s = shape_of(pixels);
  image_result result{io::host_array{op.out_type, pixels.shape, bytes(pixels.size() * io::dtype_size(op.out_type))},
                      std::nullopt};
  const std::size_t out_bytes = s.pixels() * io::dtype_size(op.out_type);
  std::optional<cuda_stream> stream;
  if (be == backend::gpu || verify) stream.emplace();
  checker check(what, s);
  for (int channel = 0; channel < s.channels; ++channel) {
    const bytes in = plane_as(pixels, channel, op.in_type);
    bytes out;
    if (stream) {
      out = run_plane_gpu(*stream, in, out_bytes, op.temp_bytes, verify, check.result().gpu_ms,
                          [&](const void* d_in, void* d_out, void* d_temp) { op.gpu(d_in, d_out, d_temp, *stream); });
      if (verify) op.check(channel, in, out, check);
    }
    if (be == backend::cpu) {
      out.assign(out_bytes, std::byte{0});
      op.cpu(in.data(), out.data());
    }
    put_plane(result.output, channel, out);
  }
  if (verify) result.verified = check.result();
  return result;
}

/// |x| of a plane, as float64.
std::vector<double> magnitudes(io::dtype type, const bytes& plane) {
  std::vector<double> out(plane.size() / io::dtype_size(type));
  visit_pixels(type, [&](auto zero) {
    using T = decltype(zero);
    const auto* x = reinterpret_cast<const T*>(plane.data());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = std::abs(static_cast<double>(x[i]));
  });
  return out;
}

bool is_integer(io::dtype t) { return !typed::is_filter_type(t); }

}  // namespace

io::dtype filter_type_of(const io::host_array& pixels) {
  return pixels.type == io::dtype::float64 ? io::dtype::float64 : io::dtype::float32;
}

bool is_filter_input(io::dtype type) {
  return type == io::dtype::uint8 || type == io::dtype::uint16 || typed::is_filter_type(type);
}

bool is_sat_input(io::dtype type) {
  return type == io::dtype::uint8 || type == io::dtype::uint16 || typed::is_accumulator(type);
}

io::dtype default_accumulator(io::dtype pixels) { return is_integer(pixels) ? io::dtype::uint64 : io::dtype::float64; }

std::string accumulator_problem(io::dtype pixels, io::dtype acc) {
  const std::string name(io::dtype_name(acc));
  if (is_integer(acc) && !is_integer(pixels))
    return "--accumulator " + name + " sums integer pixels; " + std::string(io::dtype_name(pixels)) +
           " pixels need float32 or float64";
  if (acc == io::dtype::uint32 && pixels == io::dtype::uint64)
    return "--accumulator uint32 cannot hold uint64 pixels; use uint64, float32 or float64";
  return "";
}

image_result conv2d_image(const io::host_array& pixels, const typed::image_mask& mask, boundary b, backend be,
                          bool verify) {
  const io::dtype type = filter_type_of(pixels);
  const plane_shape s = shape_of(pixels);
  // The mask in the computing type, as the GPU and the CPU reference both use it.
  const io::host_array mask_array{io::dtype::float64, {mask.height, mask.width},
                                  bytes(reinterpret_cast<const std::byte*>(mask.taps.data()),
                                        reinterpret_cast<const std::byte*>(mask.taps.data() + mask.taps.size()))};
  const bytes taps = plane_as(mask_array, 0, type);
  const typed::mask_view view{taps.data(), mask.height, mask.width};
  plane_op op;
  op.in_type = op.out_type = type;
  op.cpu = [&](const void* in, void* out) { typed::convolve2d_cpu(type, in, out, s.height, s.width, view, b); };
  op.gpu = [&](const void* d_in, void* d_out, void*, cudaStream_t stream) {
    typed::convolve2d_gpu(type, d_in, d_out, s.height, s.width, view, b, stream);
  };
  op.check = [&](int channel, const bytes& in, const bytes& gpu_out, checker& check) {
    bytes reference(gpu_out.size());
    typed::convolve2d_cpu(type, in.data(), reference.data(), s.height, s.width, view, b);
    // Rounding grows with the sum of |mask x| over each window (the same boundary rule, in float64).
    const std::vector<double> abs_x = magnitudes(type, in), abs_mask = magnitudes(type, taps);
    std::vector<double> mass(abs_x.size());
    typed::convolve2d_cpu(io::dtype::float64, abs_x.data(), mass.data(), s.height, s.width,
                          {abs_mask.data(), mask.height, mask.width}, b);
    typed::visit_filter_type(type, [&](auto zero) {
      using T = decltype(zero);
      const auto* expected = reinterpret_cast<const T*>(reference.data());
      const auto* actual = reinterpret_cast<const T*>(gpu_out.data());
      for (std::size_t i = 0; i < mass.size(); ++i)
        check.add(channel, i, static_cast<double>(expected[i]), actual[i],
                  typed::sum_tolerance<T>(mass[i], static_cast<std::int64_t>(mask.taps.size())));
    });
  };
  return run_planes(pixels, op, be, verify, "conv2d");
}

image_result sat_image(const io::host_array& pixels, io::dtype acc, backend be, bool verify) {
  const plane_shape s = shape_of(pixels);
  plane_op op;
  op.in_type = typed::table_input_type(pixels.type, acc);
  op.out_type = acc;
  op.cpu = [&](const void* in, void* out) { typed::summed_area_table_cpu(op.in_type, acc, in, out, s.height, s.width); };
  op.temp_bytes = typed::summed_area_table_temp_bytes(acc, s.height, s.width);
  op.gpu = [&](const void* d_in, void* d_out, void* d_temp, cudaStream_t stream) {
    typed::summed_area_table_gpu(op.in_type, acc, d_in, d_out, s.height, s.width, d_temp, op.temp_bytes, stream);
  };
  op.check = [&](int channel, const bytes& in, const bytes& gpu_out, checker& check) {
    typed::visit_table_input(op.in_type, acc, [&](auto in_zero, auto zero) {
      using In = decltype(in_zero);
      using Acc = decltype(zero);
      const auto* x = reinterpret_cast<const In*>(in.data());
      const auto* actual = reinterpret_cast<const Acc*>(gpu_out.data());
      if constexpr (std::is_integral_v<Acc>) {
        // Integer tables wrap alike on both sides, so they must agree exactly.
        const std::vector<Acc> expected = cpu::summed_area_table<Acc>(x, s.height, s.width);
        for (std::size_t i = 0; i < expected.size(); ++i) check.add_exact(channel, i, expected[i], actual[i]);
      } else {
        // In long double: a double reference's own rounding along a long row outgrows the tolerance.
        const std::vector<long double> expected = cpu::summed_area_table<long double>(x, s.height, s.width);
        const std::vector<double> abs_x = magnitudes(op.in_type, in);
        const std::vector<double> mass = cpu::summed_area_table<double>(abs_x.data(), s.height, s.width);
        for (std::size_t i = 0; i < expected.size(); ++i) {
          const auto terms = static_cast<std::int64_t>(i / s.width + 1) * static_cast<std::int64_t>(i % s.width + 1);
          // Terms whose magnitudes add past the type's largest value may overflow to an infinity in some
          // order of addition and not in the reference's (double) one: either is a correct table.
          const bool may_overflow = mass[i] > static_cast<double>(std::numeric_limits<Acc>::max());
          const double want =
              may_overflow && std::isinf(actual[i]) ? static_cast<double>(actual[i]) : static_cast<double>(expected[i]);
          check.add(channel, i, want, actual[i], typed::sum_tolerance<Acc>(mass[i], terms));
        }
      }
    });
  };
  return run_planes(pixels, op, be, verify, "sat " + std::string(io::dtype_name(acc)));
}

image_result boxfilter_image(const io::host_array& pixels, int radius, backend be, bool verify) {
  const plane_shape s = shape_of(pixels);
  const io::dtype acc = default_accumulator(pixels.type);
  const io::dtype out_type = filter_type_of(pixels);
  const std::size_t table_bytes = s.pixels() * io::dtype_size(acc);
  plane_op op;
  op.in_type = typed::table_input_type(pixels.type, acc);
  op.out_type = out_type;
  op.cpu = [&](const void* in, void* out) {
    bytes table(table_bytes);
    typed::summed_area_table_cpu(op.in_type, acc, in, table.data(), s.height, s.width);
    typed::box_mean_cpu(acc, out_type, table.data(), out, s.height, s.width, radius);
  };
  // The table, then the table's own temporary storage.
  const std::size_t sat_temp_bytes = typed::summed_area_table_temp_bytes(acc, s.height, s.width);
  const lookback::detail::temp_layout scratch{table_bytes, sat_temp_bytes};
  op.temp_bytes = scratch.total();
  op.gpu = [&](const void* d_in, void* d_out, void* d_temp, cudaStream_t stream) {
    void* const d_table = scratch.part(d_temp, 0);
    typed::summed_area_table_gpu(op.in_type, acc, d_in, d_table, s.height, s.width, scratch.part(d_temp, 1),
                                 sat_temp_bytes, stream);
    typed::box_mean_gpu(acc, out_type, d_table, d_out, s.height, s.width, radius, stream);
  };
  op.check = [&](int channel, const bytes& in, const bytes& gpu_out, checker& check) {
    typed::visit_table_input(op.in_type, acc, [&](auto in_zero, auto acc_zero) {
      using In = decltype(in_zero);
      using Acc = decltype(acc_zero);
      const auto* x = reinterpret_cast<const In*>(in.data());
      // Calls at(i, r, c, value) for every pixel of the GPU's output, the value in its own type.
      const auto each_pixel = [&](auto&& at) {
        typed::visit_filter_type(out_type, [&](auto out_zero) {
          const auto* actual = reinterpret_cast<const decltype(out_zero)*>(gpu_out.data());
          for (int r = 0; r < s.height; ++r)
            for (int c = 0; c < s.width; ++c) {
              const std::size_t i = static_cast<std::size_t>(r) * s.width + c;
              at(i, r, c, actual[i]);
            }
        });
      };
      if constexpr (std::is_integral_v<Acc>) {
        // An integer table is exact, and the mean is one division in double rounded to Out: the GPU's
        // output must be those bits (box_mean.hpp's promise), not merely near them.
        const std::vector<Acc> exact = cpu::summed_area_table<Acc>(x, s.height, s.width);
        each_pixel([&](std::size_t i, int r, int c, auto got) {
          using Out = decltype(got);
          check.add_exact(channel, i, static_cast<Out>(typed::box_mean_at(exact.data(), s.height, s.width, r, c, radius)),
                          got);
        });
      } else {
        const std::vector<long double> table = cpu::summed_area_table<long double>(x, s.height, s.width);
        const std::vector<double> abs_x = magnitudes(op.in_type, in);
        const std::vector<double> mass = cpu::summed_area_table<double>(abs_x.data(), s.height, s.width);
        const double window = std::pow(2.0 * radius + 1, 2);
        each_pixel([&](std::size_t i, int r, int c, auto got) {
          using Out = decltype(got);
          const int r1 = static_cast<int>(std::min<std::int64_t>(std::int64_t{r} + radius, s.height - 1));
          const int c1 = static_cast<int>(std::min<std::int64_t>(std::int64_t{c} + radius, s.width - 1));
          // The mean's rounding to Out, plus the four table reads' (each the table's own rounding).
          const double tolerance =
              typed::sum_tolerance<Out>(typed::box_mean_at(mass.data(), s.height, s.width, r, c, radius),
                                        static_cast<std::int64_t>(window)) +
              4 * typed::sum_tolerance<Acc>(mass[static_cast<std::size_t>(r1) * s.width + c1],
                                            std::int64_t{r1 + 1} * (c1 + 1)) /
                  window;
          check.add(channel, i, typed::box_mean_at(table.data(), s.height, s.width, r, c, radius), got, tolerance);
        });
      }
    });
  };
  return run_planes(pixels, op, be, verify, "boxfilter");
}

std::string check_line(const image_check& check, const std::string& what) {
  char line[256];
  std::snprintf(line, sizeof line,
                "verify %s: lookback %.4f ms on the GPU, matches the CPU reference (largest difference %.3g, allowed "
                "there %.3g)",
                what.c_str(), check.gpu_ms, check.max_difference, check.tolerance_there);
  return line;
}

void save_and_report(const image_result& r, const io::host_array& pixels, const std::filesystem::path& output,
                     io::dtype samples, const std::string& what, const std::string& check_what,
                     const std::string& indent) {
  const std::int64_t clipped = save_image(output, r.output, samples);
  std::cout << indent << image_summary(what, pixels, r.output, output, clipped, samples) << "\n";
  if (r.verified) std::cout << indent << indent << check_line(*r.verified, check_what) << "\n";
}

}  // namespace lookback::cli
