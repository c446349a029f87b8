#pragma once
// The readers take paths, so each fuzz input goes through a file in a private folder.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

namespace lookback::fuzz {

class scratch_file {
 public:
  scratch_file(const std::uint8_t* data, std::size_t size, const char* extension)
      : path_(std::filesystem::temp_directory_path() /
              ("lookback-fuzz-" + std::to_string(::getpid()) + extension)) {
    std::FILE* f = std::fopen(path_.c_str(), "wb");
    if (f == nullptr) __builtin_trap();
    if (size != 0 && std::fwrite(data, 1, size, f) != size) __builtin_trap();
    std::fclose(f);
  }
  ~scratch_file() { std::filesystem::remove(path_); }
  scratch_file(const scratch_file&) = delete;
  scratch_file& operator=(const scratch_file&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace lookback::fuzz
