#include "io/number_text.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>

namespace lookback::io {

std::optional<long> parse_whole_long(const std::string& text) {
  if (text.empty() || text.size() > 9) return std::nullopt;
  for (const char c : text)
    if (c < '0' || c > '9') return std::nullopt;
  return std::strtol(text.c_str(), nullptr, 10);
}

std::optional<double> parse_whole_double(const std::string& text) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text.c_str(), &end);
  if (*end != '\0' || errno == ERANGE) return std::nullopt;
  return value;
}

}  // namespace lookback::io
