// The host side of the typed compaction: --predicate parsing and the CPU reference. No CUDA calls, so
// the option fuzzer links it.
#include "typed/select_ops.hpp"
#include "typed/select_predicate.hpp"

#include <utility>

namespace lookback::typed {

namespace {
constexpr std::pair<std::string_view, compare_kind> valued_kinds[] = {{"gt", compare_kind::gt}, {"ge", compare_kind::ge},
                                                                      {"lt", compare_kind::lt}, {"le", compare_kind::le},
                                                                      {"eq", compare_kind::eq}, {"ne", compare_kind::ne}};
}  // namespace

std::string_view compare_name(compare_kind kind) {
  for (const auto& [name, k] : valued_kinds)
    if (k == kind) return name;
  return "nonzero";
}

std::optional<std::string> parse_predicate(io::dtype type, std::string_view text, select_spec& spec) {
  spec.type = type;
  spec.flagged = false;
  if (text == "nonzero") {
    spec.compare = compare_kind::nonzero;
    return std::nullopt;
  }
  const auto colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  for (const auto& [kind_name, kind] : valued_kinds) {
    if (name != kind_name) continue;
    if (colon == std::string_view::npos) return "'" + std::string(text) + "' needs a value, as in " + std::string(name) + ":5";
    const auto value = parse_scalar(type, text.substr(colon + 1));
    if (!value)
      return "'" + std::string(text.substr(colon + 1)) + "' is not a valid " + std::string(io::dtype_name(type)) + " value";
    spec.compare = kind;
    spec.value = *value;
    return std::nullopt;
  }
  return "'" + std::string(text) + "' is not a predicate (nonzero, gt:V, ge:V, lt:V, le:V, eq:V or ne:V)";
}

std::int64_t select_cpu(const select_spec& spec, const void* in, const std::uint8_t* flags, void* out, std::int64_t n) {
  return visit_numeric(spec.type, [&](auto zero) {
    using T = decltype(zero);
    const auto* values = static_cast<const T*>(in);
    auto* kept = static_cast<T*>(out);
    const auto pred = predicate_of<T>(spec);
    std::int64_t count = 0;
    for (std::int64_t i = 0; i < n; ++i)
      if (spec.flagged ? flags[i] != 0 : pred(values[i])) kept[count++] = values[i];
    return count;
  });
}

}  // namespace lookback::typed
