#pragma once
// What a failed command reports: its one line and its sysexits code, from whatever it threw. main and
// the distributed ranks (which agree on a failure before reporting it) share this one mapping.
#include <exception>
#include <string>

namespace lookback::cli {

struct failure {
  int exit_code;
  std::string message;
  bool agreed = false;  // a dist_error: every rank of a launch threw it at the same agreement
};

failure classify(std::exception_ptr error);

}  // namespace lookback::cli
