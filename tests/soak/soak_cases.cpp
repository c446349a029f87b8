#include "soak/soak_cases.hpp"

#include "cli/array_ops.hpp"
#include "cli/array_stream.hpp"
#include "support/gpu_test.hpp"
#include "typed/histogram_visit.hpp"

#include <lookback/pipelines/source.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace lookback::soak {
namespace {

template <class T, std::size_t N>
T pick(const T (&choices)[N], std::mt19937_64& rng) {
  return choices[std::uniform_int_distribution<std::size_t>(0, N - 1)(rng)];
}

std::int64_t uniform(std::int64_t lo, std::int64_t hi, std::mt19937_64& rng) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
}

bool coin(std::mt19937_64& rng) { return uniform(0, 1, rng) == 1; }

/// Log-uniform up to 2^26, with tiny sizes (0 and around a warp) and tile boundaries (m 2^k - 1, m 2^k,
/// m 2^k + 1: the tiles hold 2^k or 3 2^k items) drawn more often than their share.
std::int64_t draw_size(std::mt19937_64& rng) {
  constexpr std::int64_t max_size = std::int64_t{1} << max_log2_size;
  switch (uniform(0, 9, rng)) {
    case 0: return uniform(0, 40, rng);
    case 1:
    case 2: {
      const std::int64_t boundary = uniform(1, 3, rng) << uniform(5, max_log2_size - 2, rng);
      return std::min(boundary + uniform(-1, 1, rng), max_size);
    }
    default: {
      const double log2_size = std::uniform_real_distribution<double>(0, max_log2_size)(rng);
      return std::min(static_cast<std::int64_t>(std::exp2(log2_size)), max_size);
    }
  }
}

std::string size_text(std::int64_t n) { return "n = " + std::to_string(n); }

io::host_array array_of(io::dtype type, std::int64_t n) {
  return {type, {n}, std::vector<std::byte>(static_cast<std::size_t>(n) * io::dtype_size(type))};
}

/// Every bit pattern alike: sort keys then include NaNs of both signs, infinities and both zeros.
void fill_random_bits(std::vector<std::byte>& bytes, std::mt19937_64& rng) {
  for (std::size_t i = 0; i < bytes.size(); i += 8) {
    const std::uint64_t r = rng();
    std::memcpy(bytes.data() + i, &r, std::min<std::size_t>(8, bytes.size() - i));
  }
}

/// Keys from a pool of a few values, so that many are equal in the sorted bits (stability shows);
/// floating-point pools hold the values that order specially.
void fill_from_pool(io::host_array& keys, std::mt19937_64& rng) {
  const std::size_t width = io::dtype_size(keys.type);
  io::host_array pool = array_of(keys.type, uniform(1, 16, rng));
  fill_random_bits(pool.bytes, rng);
  const auto put_specials = [&](auto zero) {
    using T = decltype(zero);
    const T specials[] = {T(0), -T(0), std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(),
                          std::numeric_limits<T>::quiet_NaN(), -std::numeric_limits<T>::quiet_NaN(), T(1), T(-1)};
    for (std::int64_t i = 0; i < pool.size(); ++i) {
      if (!coin(rng)) continue;
      const T special = pick(specials, rng);
      std::memcpy(pool.bytes.data() + i * width, &special, width);
    }
  };
  if (keys.type == io::dtype::float32) put_specials(float{});
  if (keys.type == io::dtype::float64) put_specials(double{});
  for (std::int64_t i = 0; i < keys.size(); ++i)
    std::memcpy(keys.bytes.data() + i * width, pool.bytes.data() + uniform(0, pool.size() - 1, rng) * width, width);
}

constexpr io::dtype numeric_types[] = {io::dtype::int32,   io::dtype::uint32,  io::dtype::int64,
                                       io::dtype::uint64,  io::dtype::float32, io::dtype::float64};
constexpr test::distribution distributions[] = {test::distribution::small, test::distribution::signed_,
                                                test::distribution::constant};

/// A third of the cases run under a device budget a fraction of their input (at least 32 MiB), so
/// that large ones stream in chunks and carry values between them; the rest in one piece.
cli::memory_caps draw_caps(std::mt19937_64& rng, std::int64_t input_bytes, std::string& what) {
  cli::memory_caps caps;
  if (uniform(0, 2, rng) != 0) return caps;
  caps.device_bytes = static_cast<std::size_t>(std::max<std::int64_t>(std::int64_t{32} << 20, input_bytes / uniform(2, 6, rng)));
  what += ", device budget " + std::to_string(caps.device_bytes) + " bytes";
  return caps;
}

void reduce_case(std::mt19937_64& rng, std::int64_t n, std::string& what) {
  const io::dtype type = pick(numeric_types, rng);
  const typed::op_kind op = pick({typed::op_kind::sum, typed::op_kind::min, typed::op_kind::max}, rng);
  const bool deterministic = coin(rng);
  const io::host_array input = test::random_array(type, n, pick(distributions, rng), rng);
  what = std::string(deterministic ? "deterministic " : "") + "reduce " + std::string(typed::op_name(op)) + " " +
         std::string(io::dtype_name(type)) + ", " + size_text(n);
  const cli::memory_caps caps = draw_caps(rng, static_cast<std::int64_t>(input.bytes.size()), what);
  pipelines::host_source in(input.bytes.data(), input.size(), io::dtype_size(type));
  std::vector<std::byte> result(io::dtype_size(type));
  (void)cli::reduce_streamed(type, op, in, result.data(), {cli::backend::gpu, true, caps, {}}, deterministic);
}

void scan_case(std::mt19937_64& rng, std::int64_t n, std::string& what) {
  typed::scan_spec spec;
  spec.type = pick(numeric_types, rng);
  spec.op = pick({typed::op_kind::sum, typed::op_kind::min, typed::op_kind::max}, rng);
  spec.inclusive = coin(rng);
  spec.deterministic = uniform(0, 3, rng) == 0;
  const io::host_array input = test::random_array(spec.type, n, pick(distributions, rng), rng);
  spec.init = typed::identity(spec.type, spec.op);
  if (!spec.inclusive && n > 0 && coin(rng))
    spec.init = typed::load_scalar(spec.type, input.bytes.data() + uniform(0, n - 1, rng) * io::dtype_size(spec.type));
  what = "scan " + cli::describe(spec) + " " + std::string(io::dtype_name(spec.type)) + ", " + size_text(n);
  if (!spec.inclusive) what += ", init " + typed::format_scalar(spec.init);
  const cli::memory_caps caps = draw_caps(rng, static_cast<std::int64_t>(input.bytes.size()), what);
  (void)cli::scan_array(input, spec, cli::backend::gpu, true, caps);
}

void compact_case(std::mt19937_64& rng, std::int64_t n, std::string& what) {
  typed::select_spec spec;
  spec.type = pick(numeric_types, rng);
  spec.flagged = coin(rng);
  const io::host_array values = test::random_array(spec.type, n, pick(distributions, rng), rng);
  std::vector<std::uint8_t> flags;
  std::string kept;
  if (spec.flagged) {
    const double p = pick({0.0, 0.5, 1.0, std::uniform_real_distribution<double>(0, 1)(rng)}, rng);
    std::bernoulli_distribution keep(p);
    flags.resize(static_cast<std::size_t>(n));
    for (std::uint8_t& f : flags) f = keep(rng) ? 1 : 0;
    kept = ", flags nonzero with p = " + std::to_string(p);
  } else {
    using typed::compare_kind;
    spec.compare = pick({compare_kind::nonzero, compare_kind::gt, compare_kind::ge, compare_kind::lt, compare_kind::le,
                         compare_kind::eq, compare_kind::ne},
                        rng);
    // A threshold from the data, so that every predicate keeps some and drops some.
    spec.value = n > 0 ? typed::load_scalar(spec.type, values.bytes.data() + uniform(0, n - 1, rng) * io::dtype_size(spec.type))
                       : typed::identity(spec.type, typed::op_kind::sum);
  }
  what = "compact " + cli::describe(spec) + " " + std::string(io::dtype_name(spec.type)) + ", " + size_text(n) + kept;
  const cli::memory_caps caps = draw_caps(rng, static_cast<std::int64_t>(values.bytes.size()), what);
  (void)cli::compact_array(values, spec, flags, cli::backend::gpu, true, caps);
}

void sort_case(std::mt19937_64& rng, std::int64_t n, std::string& what) {
  typed::sort_spec spec;
  spec.key = pick({io::dtype::uint8, io::dtype::uint16, io::dtype::uint32, io::dtype::int32, io::dtype::float32,
                   io::dtype::uint64, io::dtype::int64, io::dtype::float64},
                  rng);
  spec.descending = coin(rng);
  const int bits = typed::key_bits(spec.key);
  spec.begin_bit = 0;
  spec.end_bit = bits;
  if (coin(rng)) {
    spec.begin_bit = static_cast<int>(uniform(0, bits - 1, rng));
    spec.end_bit = static_cast<int>(uniform(spec.begin_bit + 1, bits, rng));
  }
  // Where CUB's single-tile sort places the zeros otherwise (test::cub_single_tile_sort_items), such
  // cases draw sizes past that tile.
  const bool floating = io::is_floating(spec.key);
  if (floating && spec.descending && (spec.begin_bit > 0 || spec.end_bit < bits) && n <= test::cub_single_tile_sort_items)
    n += test::cub_single_tile_sort_items + 1;
  io::host_array keys = array_of(spec.key, n);
  if (coin(rng))
    fill_random_bits(keys.bytes, rng);
  else
    fill_from_pool(keys, rng);
  // Each key's position as its value: where the two sorts place a value says which key it left.
  std::optional<io::host_array> values;
  if (coin(rng)) {
    const bool wide = coin(rng);
    spec.value_bytes = wide ? 8 : 4;
    values = array_of(wide ? io::dtype::uint64 : io::dtype::uint32, n);
    for (std::int64_t i = 0; i < n; ++i) {
      if (wide)
        values->as<std::uint64_t>()[i] = static_cast<std::uint64_t>(i);
      else
        values->as<std::uint32_t>()[i] = static_cast<std::uint32_t>(i);
    }
  }
  typed::check_sort_spec(spec);
  what = std::string(values ? "sort pairs " : "sort keys ") + std::string(io::dtype_name(spec.key)) +
         (values ? "/" + std::string(io::dtype_name(values->type)) : std::string()) + " " + cli::describe(spec) + ", " +
         size_text(n);
  (void)cli::sort_arrays(keys, values ? &*values : nullptr, spec, cli::backend::gpu, true);
}

/// Samples around [lower, upper) with some outside. Floating-point ones lie on a grid of step 2^-k with
/// far fewer than 2^23 points in the range, where lower and upper lie too: below upper by a step, no
/// sample's bin rounds up to `bins`, the one case where CUB drops a sample that ours counts (README).
template <class Sample>
io::host_array histogram_samples(typed::histogram_spec& spec, std::int64_t n, std::mt19937_64& rng) {
  io::host_array samples = array_of(io::dtype_of<Sample>(), n);
  Sample* out = samples.as<Sample>();
  if constexpr (std::is_integral_v<Sample>) {
    const std::int64_t lowest = std::numeric_limits<Sample>::lowest(), highest = std::numeric_limits<Sample>::max();
    const std::int64_t span = std::min<std::int64_t>(highest - lowest, std::int64_t{1} << uniform(0, 24, rng));
    const std::int64_t lower = uniform(lowest, highest - span, rng);
    spec.lower = static_cast<double>(lower);
    spec.upper = static_cast<double>(lower + uniform(1, span, rng));
    const std::int64_t margin = span / 8;
    const std::int64_t from = std::max(lowest, lower - margin), to = std::min(highest, lower + span + margin);
    for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<Sample>(uniform(from, to, rng));
  } else {
    const double step = std::ldexp(1.0, -static_cast<int>(uniform(0, 8, rng)));
    const std::int64_t first = uniform(-(1 << 12), 1 << 12, rng), points = uniform(1, 1 << 16, rng);
    spec.lower = static_cast<double>(first) * step;
    spec.upper = static_cast<double>(first + points) * step;
    const std::int64_t margin = points / 8 + 1;
    for (std::int64_t i = 0; i < n; ++i)
      out[i] = static_cast<Sample>(static_cast<double>(uniform(first - margin, first + points + margin, rng)) * step);
  }
  return samples;
}

void histogram_case(std::mt19937_64& rng, std::int64_t n, std::string& what) {
  typed::histogram_spec spec;
  spec.sample = pick({io::dtype::uint8, io::dtype::uint16, io::dtype::int32, io::dtype::uint32, io::dtype::float32,
                      io::dtype::float64},
                     rng);
  spec.counter = pick({io::dtype::uint32, io::dtype::uint64}, rng);
  spec.num_bins = static_cast<int>(std::exp2(std::uniform_real_distribution<double>(0, 16)(rng)));
  const io::host_array samples =
      typed::visit_histogram_sample(spec.sample, [&](auto zero) { return histogram_samples<decltype(zero)>(spec, n, rng); });
  if (const std::string problem = typed::histogram_spec_problem(spec); !problem.empty())
    throw std::logic_error("soak drew an invalid histogram: " + problem);
  char range[96];
  std::snprintf(range, sizeof range, " over [%.17g, %.17g)", spec.lower, spec.upper);
  what = "histogram " + std::string(io::dtype_name(spec.sample)) + " into " + std::to_string(spec.num_bins) + " " +
         std::string(io::dtype_name(spec.counter)) + " bins" + range + ", " + size_text(n);
  const cli::memory_caps caps = draw_caps(rng, static_cast<std::int64_t>(samples.bytes.size()), what);
  (void)cli::histogram_array(samples, spec, cli::backend::gpu, true, caps);
}

}  // namespace

void run_case(std::mt19937_64& rng, std::string& what) {
  using case_fn = void (*)(std::mt19937_64&, std::int64_t, std::string&);
  const case_fn cases[] = {reduce_case, scan_case, compact_case, sort_case, histogram_case};
  const case_fn run = pick(cases, rng);
  run(rng, draw_size(rng), what);
}

}  // namespace lookback::soak
