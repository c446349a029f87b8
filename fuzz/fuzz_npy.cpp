// libFuzzer target: the .npy reader on arbitrary bytes. Every outcome but a clean array or an
// io_error (a crash, a hang, a sanitizer report, another exception) is a bug.
#include "fuzz_file.hpp"
#include "io/io_error.hpp"
#include "io/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const lookback::fuzz::scratch_file file(data, size, ".npy");
  try {
    const lookback::io::host_array a = lookback::io::read_npy(file.path());
    // A clean read must describe exactly the bytes it holds.
    if (static_cast<std::size_t>(a.size()) * lookback::io::dtype_size(a.type) != a.bytes.size()) __builtin_trap();
  } catch (const lookback::io::io_error&) {
  }
  return 0;
}
