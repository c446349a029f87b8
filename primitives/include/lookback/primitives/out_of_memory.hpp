#pragma once
// How a failed allocation reads wherever this project reports one: the command's messages
// (apps/cli/failure.cpp) and the failures that ranks agree on (dist::guarded), with sysexits'
// EX_OSERR as the exit code in both.
#include <sysexits.h>

#include <string>

namespace lookback {

inline constexpr int out_of_memory_exit_code = EX_OSERR;
inline constexpr const char* out_of_host_memory = "out of host memory";
inline std::string out_of_device_memory(const std::string& what) { return "out of device memory: " + what; }

}  // namespace lookback
