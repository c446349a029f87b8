// The host side of the typed sort: which dtypes and bit ranges it takes, --bits parsing, and the CPU
// reference (a stable sort on the same order-preserving bits as the GPU's). No CUDA calls, so the
// option fuzzer links it.
#include "typed/sort_ops.hpp"
#include "typed/sort_visit.hpp"

#include <lookback/algorithms/cpu/radix_sort.hpp>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace lookback::typed {

bool is_sort_key(io::dtype type) {
  switch (type) {
    case io::dtype::uint8: case io::dtype::uint16: case io::dtype::uint32: case io::dtype::int32:
    case io::dtype::float32: case io::dtype::uint64: case io::dtype::int64: case io::dtype::float64: return true;
    default: return false;
  }
}

std::string sort_key_list() { return "uint8, uint16, uint32, int32, float32, uint64, int64, float64"; }

bool is_sort_value(io::dtype type) { return io::dtype_size(type) == 4 || io::dtype_size(type) == 8; }

std::string sort_value_list() { return "any dtype of 4 or 8 bytes: int32, uint32, float32, int64, uint64, float64"; }

int key_bits(io::dtype key) { return 8 * static_cast<int>(io::dtype_size(key)); }

namespace {
std::string bits_problem(const sort_spec& spec) {
  const int width = key_bits(spec.key);
  if (spec.begin_bit >= 0 && spec.begin_bit < spec.end_bit && spec.end_bit <= width) return {};
  return "--bits " + std::to_string(spec.begin_bit) + ":" + std::to_string(spec.end_bit) + " is not a range of the " +
         std::to_string(width) + " bits of " + std::string(io::dtype_name(spec.key)) + " keys (needs 0 <= B < E <= " +
         std::to_string(width) + ")";
}

bool parse_int(std::string_view text, int& value) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

std::optional<std::string> parse_bits(std::string_view text, sort_spec& spec) {
  const auto colon = text.find(':');
  if (colon == std::string_view::npos || !parse_int(text.substr(0, colon), spec.begin_bit) ||
      !parse_int(text.substr(colon + 1), spec.end_bit))
    return "--bits must be B:E, not '" + std::string(text) + "'";
  if (std::string problem = bits_problem(spec); !problem.empty()) return problem;
  return std::nullopt;
}

std::string sort_spec_problem(const sort_spec& spec) {
  if (!is_sort_key(spec.key))
    return "key dtype " + std::string(io::dtype_name(spec.key)) + " is not supported (supported: " + sort_key_list() + ")";
  if (spec.value_bytes != 0 && spec.value_bytes != 4 && spec.value_bytes != 8)
    return "values of " + std::to_string(spec.value_bytes) + " bytes are not supported (4 or 8)";
  return bits_problem(spec);
}

void check_sort_spec(const sort_spec& spec) {
  if (const std::string problem = sort_spec_problem(spec); !problem.empty())
    throw std::invalid_argument("lookback::typed::sort: " + problem);
}

namespace {
void gather(const void* in, void* out, std::size_t width, const std::vector<std::int64_t>& order) {
  const auto* from = static_cast<const std::byte*>(in);
  auto* to = static_cast<std::byte*>(out);
  for (std::size_t i = 0; i < order.size(); ++i)
    std::memcpy(to + i * width, from + static_cast<std::size_t>(order[i]) * width, width);
}
}  // namespace

void sort_cpu(const sort_spec& spec, const void* keys_in, void* keys_out, const void* values_in, void* values_out,
              std::int64_t n) {
  check_sort_spec(spec);
  visit_sort_key(spec.key, [&](auto zero) {
    using Key = decltype(zero);
    const auto* keys = static_cast<const Key*>(keys_in);
    const std::vector<std::int64_t> order =
        spec.descending ? cpu::stable_sort_order<Key, true>(keys, n, spec.begin_bit, spec.end_bit)
                        : cpu::stable_sort_order<Key, false>(keys, n, spec.begin_bit, spec.end_bit);
    gather(keys_in, keys_out, sizeof(Key), order);
    if (spec.value_bytes != 0) gather(values_in, values_out, static_cast<std::size_t>(spec.value_bytes), order);
  });
}

}  // namespace lookback::typed
