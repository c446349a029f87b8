// libFuzzer target: the parsers behind the command's option values (--dtype, --op, --init, the
// histogram's --bins/--range checks, compact's --predicate, sort's --bits, conv2d's --kernel, fir's
// --window), each followed by the CPU reference or the mask or window it describes when it accepts.
// Input: "word<NUL>word<NUL>..."; none may crash or throw.
#include "typed/fir_design.hpp"
#include "typed/histogram_ops.hpp"
#include "typed/image_masks.hpp"
#include "typed/select_ops.hpp"
#include "typed/sort_ops.hpp"
#include "typed/typed_ops.hpp"

#include <cstdlib>
#include <cstddef>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> words(1);
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == 0) words.emplace_back();
    else words.back().push_back(static_cast<char>(data[i]));
  }
  using namespace lookback;
  for (const std::string& w : words) {
    typed::image_mask mask;
    if (!typed::parse_kernel_spec(w, mask) &&
        mask.taps.size() != static_cast<std::size_t>(mask.height) * static_cast<std::size_t>(mask.width))
      std::abort();
    typed::window_spec window;
    if (!typed::parse_window(w, window)) (void)typed::window_values(window, 7);
    (void)io::parse_dtype(w);
    (void)typed::parse_op(w);
    for (const io::dtype t : {io::dtype::int32, io::dtype::uint32, io::dtype::int64, io::dtype::uint64,
                              io::dtype::float32, io::dtype::float64})
      if (const auto v = typed::parse_scalar(t, w)) (void)typed::format_scalar(*v);
    // Eight values of up to 8 bytes: raw bits, so every dtype sees NaNs, infinities and extremes.
    alignas(8) const std::uint8_t values[64] = {0,   1,   2,   3,   255, 255, 255, 255, 0,   0,   128, 127,
                                                0,   0,   192, 255, 7,   0,   0,   0,   0,   0,   0,   128,
                                                1,   0,   0,   128, 255, 255, 127, 127, 9,   9,   9,   9,
                                                0,   0,   248, 127, 42,  0,   0,   0,   0,   0,   240, 255};
    alignas(8) std::uint8_t out[64];
    alignas(8) std::uint8_t values_out[64];
    for (const io::dtype t : {io::dtype::int32, io::dtype::uint32, io::dtype::int64, io::dtype::uint64,
                              io::dtype::float32, io::dtype::float64}) {
      typed::select_spec select;
      if (!typed::parse_predicate(t, w, select)) {
        const std::int64_t n = 64 / static_cast<std::int64_t>(io::dtype_size(t));
        (void)typed::select_cpu(select, values, nullptr, out, n);
      }
    }
    for (const io::dtype t : {io::dtype::uint8, io::dtype::uint16, io::dtype::uint32, io::dtype::int32,
                              io::dtype::float32, io::dtype::uint64, io::dtype::int64, io::dtype::float64}) {
      typed::sort_spec sort;
      sort.key = t;
      sort.value_bytes = 4;
      if (!typed::parse_bits(w, sort)) {
        const std::int64_t n = 16 / static_cast<std::int64_t>(io::dtype_size(t));
        typed::sort_cpu(sort, values, out, values, values_out, n);
      }
    }
  }
  if (words.size() >= 3) {
    typed::histogram_spec spec;
    spec.num_bins = std::atoi(words[0].c_str());
    spec.lower = std::strtod(words[1].c_str(), nullptr);
    spec.upper = std::strtod(words[2].c_str(), nullptr);
    for (const io::dtype t : {io::dtype::uint8, io::dtype::uint16, io::dtype::int32, io::dtype::uint32,
                              io::dtype::float32, io::dtype::float64}) {
      spec.sample = t;
      // Whatever the checks accept, the CPU histogram must then compute without tripping a sanitizer.
      if (typed::histogram_spec_problem(spec).empty()) {
        alignas(8) const std::uint8_t samples[16] = {1, 2, 3, 4, 250, 251, 252, 253, 0, 0, 0, 0, 255, 255, 255, 127};
        std::vector<unsigned long long> counts(static_cast<std::size_t>(spec.num_bins));
        spec.counter = io::dtype::uint64;
        typed::histogram_even_cpu(spec, samples, 16 / static_cast<std::int64_t>(io::dtype_size(t)), counts.data());
      }
    }
  }
  return 0;
}
