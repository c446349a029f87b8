#pragma once
// A failure the command reports in one line and turns into an exit code.
#include <stdexcept>
#include <string>

namespace lookback::cli {

class cli_error : public std::runtime_error {
 public:
  cli_error(int exit_code, const std::string& message) : std::runtime_error(message), exit_code_(exit_code) {}
  [[nodiscard]] int exit_code() const noexcept { return exit_code_; }

 private:
  int exit_code_;
};

}  // namespace lookback::cli
