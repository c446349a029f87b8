#pragma once
// The one error every rank throws when any rank fails: the failing rank (the lowest, when several
// fail at once) and its cause, so that each process's one-line report names them alike.
#include <stdexcept>
#include <string>

namespace lookback::dist {

class dist_error : public std::runtime_error {
 public:
  /// `exit_code` is the failing rank's own (a command maps it to its sysexits code; 0: unknown).
  dist_error(int rank, const std::string& cause, int exit_code = 0)
      : std::runtime_error("rank " + std::to_string(rank) + ": " + cause), rank_(rank), cause_(cause),
        exit_code_(exit_code) {}
  [[nodiscard]] int rank() const noexcept { return rank_; }
  [[nodiscard]] const std::string& cause() const noexcept { return cause_; }
  [[nodiscard]] int exit_code() const noexcept { return exit_code_; }

 private:
  int rank_;
  std::string cause_;
  int exit_code_;
};

}  // namespace lookback::dist
