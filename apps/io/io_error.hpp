#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace lookback::io {

/// `s` with its line breaks turned into spaces, so that a hostile file name cannot forge extra
/// diagnostic lines.
inline std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

// What went wrong, coarsely enough to choose a process exit status.
enum class error_kind { no_input, data_error, cant_create, io_failure };

// what() is always a single line "<path>: <problem>" (one_line), ready to print after the
// program name.
class io_error : public std::runtime_error {
 public:
  io_error(error_kind kind, const std::filesystem::path& path, std::string_view problem)
      : std::runtime_error(one_line(path.string() + ": " + std::string(problem))), kind_(kind) {}

  error_kind kind() const noexcept { return kind_; }

 private:
  error_kind kind_;
};

}  // namespace lookback::io
