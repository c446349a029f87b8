// libFuzzer target: the PNG (libpng, through our callbacks and limits) and PGM readers on arbitrary
// bytes, each given every input. Every outcome but a clean image or an io_error (a crash, a hang, a
// sanitizer report, another exception) is a bug.
#include "fuzz_file.hpp"
#include "io/io_error.hpp"
#include "io/pgm.hpp"
#include "io/png.hpp"

namespace {
template <class Read>
void read_clean(const std::uint8_t* data, std::size_t size, const char* extension, Read&& read) {
  const lookback::fuzz::scratch_file file(data, size, extension);
  try {
    const lookback::io::host_array a = read(file.path());
    // A clean read must describe exactly the bytes it holds: (height, width) or (height, width, 3).
    if (a.shape.size() != 2 && !(a.shape.size() == 3 && a.shape[2] == 3)) __builtin_trap();
    if (static_cast<std::size_t>(a.size()) * lookback::io::dtype_size(a.type) != a.bytes.size()) __builtin_trap();
  } catch (const lookback::io::io_error&) {
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  read_clean(data, size, ".png", [](const std::filesystem::path& p) { return lookback::io::read_png(p); });
  read_clean(data, size, ".pgm", [](const std::filesystem::path& p) { return lookback::io::read_pgm(p); });
  return 0;
}
