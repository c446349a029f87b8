#pragma once
// sysexits(3) values; docs/command.md lists which failure gets which.
#include "io/io_error.hpp"

namespace lookback::cli::exit_code {
inline constexpr int ok = 0;
inline constexpr int usage = 64;        // EX_USAGE: bad option or option value
inline constexpr int data_error = 65;   // EX_DATAERR: input file malformed or of an unsupported dtype
inline constexpr int no_input = 66;     // EX_NOINPUT: input missing or unreadable
inline constexpr int unavailable = 69;  // EX_UNAVAILABLE: --backend gpu or --verify without a usable GPU
inline constexpr int software = 70;     // EX_SOFTWARE: verification mismatch, CUDA failure
inline constexpr int os_error = 71;     // EX_OSERR: out of host or device memory
inline constexpr int cant_create = 73;  // EX_CANTCREAT: output not creatable or equal to an input
inline constexpr int io_error = 74;     // EX_IOERR: read or write failed midway
}  // namespace lookback::cli::exit_code

namespace lookback::cli {

/// The exit code for a file-format or file-system failure.
constexpr int exit_code_for(io::error_kind kind) {
  switch (kind) {
    case io::error_kind::no_input: return exit_code::no_input;
    case io::error_kind::data_error: return exit_code::data_error;
    case io::error_kind::cant_create: return exit_code::cant_create;
    case io::error_kind::io_failure: return exit_code::io_error;
  }
  return exit_code::software;
}

}  // namespace lookback::cli
