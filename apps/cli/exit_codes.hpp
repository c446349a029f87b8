#pragma once
// sysexits(3) values; README lists which failure gets which.
namespace lookback::cli::exit_code {
inline constexpr int ok = 0;
inline constexpr int usage = 64;        // EX_USAGE: bad option or option value
inline constexpr int data_error = 65;   // EX_DATAERR: input file malformed or of an unsupported dtype
inline constexpr int no_input = 66;     // EX_NOINPUT: input missing or unreadable
inline constexpr int unavailable = 69;  // EX_UNAVAILABLE: --backend gpu or --verify without a usable GPU
inline constexpr int software = 70;     // EX_SOFTWARE: verification mismatch, CUDA failure
inline constexpr int os_error = 71;     // EX_OSERR: out of host memory
inline constexpr int cant_create = 73;  // EX_CANTCREAT: output not creatable or equal to an input
inline constexpr int io_error = 74;     // EX_IOERR: read or write failed midway
}  // namespace lookback::cli::exit_code
