// libFuzzer target: the raw reader; the first byte picks the dtype, the rest is the file.
#include "fuzz_file.hpp"
#include "io/io_error.hpp"
#include "io/raw.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const auto type = static_cast<lookback::io::dtype>(data[0] % 11);
  const lookback::fuzz::scratch_file file(data + 1, size - 1, ".bin");
  try {
    const lookback::io::host_array a = lookback::io::read_raw(file.path(), type);
    if (a.bytes.size() != size - 1) __builtin_trap();
  } catch (const lookback::io::io_error&) {
  }
  return 0;
}
