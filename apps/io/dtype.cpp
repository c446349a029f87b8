#include "io/dtype.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <string>

namespace lookback::io {
namespace {

struct dtype_info {
  dtype type;
  std::size_t size;
  std::string_view name;
};

// Indexed by the enumerator's value; the static_assert below keeps the two in step.
constexpr dtype_info infos[] = {
    {dtype::bool_, 1, "bool"},      {dtype::int8, 1, "int8"},       {dtype::int16, 2, "int16"},
    {dtype::int32, 4, "int32"},     {dtype::int64, 8, "int64"},     {dtype::uint8, 1, "uint8"},
    {dtype::uint16, 2, "uint16"},   {dtype::uint32, 4, "uint32"},   {dtype::uint64, 8, "uint64"},
    {dtype::float32, 4, "float32"}, {dtype::float64, 8, "float64"},
};

constexpr bool table_in_enum_order() {
  for (std::size_t i = 0; i < std::size(infos); ++i)
    if (static_cast<std::size_t>(infos[i].type) != i) return false;
  return true;
}
static_assert(table_in_enum_order() && std::size(infos) == 11);

struct alias {
  std::string_view spelling;
  dtype type;
};

constexpr alias aliases[] = {
    {"b1", dtype::bool_},      {"?", dtype::bool_},        {"i1", dtype::int8},     {"i2", dtype::int16},
    {"i4", dtype::int32},      {"i8", dtype::int64},       {"u1", dtype::uint8},    {"u2", dtype::uint16},
    {"u4", dtype::uint32},     {"u8", dtype::uint64},      {"f4", dtype::float32},  {"f8", dtype::float64},
    {"i16", dtype::int16},     {"i32", dtype::int32},      {"i64", dtype::int64},   {"u16", dtype::uint16},
    {"u32", dtype::uint32},    {"u64", dtype::uint64},     {"f32", dtype::float32}, {"f64", dtype::float64},
    {"float", dtype::float32}, {"double", dtype::float64},
};

const dtype_info& info(dtype t) { return infos[static_cast<std::size_t>(t)]; }

}  // namespace

std::size_t dtype_size(dtype t) { return info(t).size; }

std::string_view dtype_name(dtype t) { return info(t).name; }

std::optional<dtype> parse_dtype(std::string_view s) {
  std::string lower(s);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const auto& i : infos)
    if (i.name == lower) return i.type;
  for (const auto& a : aliases)
    if (a.spelling == lower) return a.type;
  return std::nullopt;
}

}  // namespace lookback::io
