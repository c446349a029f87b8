#pragma once
// Numbers written on the command line, read whole: strtod and strtol would skip leading white space and
// stop at the first character they cannot take, so " 2" or "2x" would pass as 2.
#include <optional>
#include <string>

namespace lookback::io {

/// The whole of `text` as a decimal integer of at most nine digits (no sign, no spaces), or nullopt.
std::optional<long> parse_whole_long(const std::string& text);

/// The whole of `text` as a double (strtod's forms, "inf" and "nan" among them), or nullopt; text past
/// a double's range, or so small it would be taken as a subnormal or zero, is refused.
std::optional<double> parse_whole_double(const std::string& text);

}  // namespace lookback::io
