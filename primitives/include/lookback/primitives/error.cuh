#pragma once
// One exception type and one checking macro for every CUDA call and launch in the project.
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace lookback {

class cuda_error : public std::runtime_error {
 public:
  cuda_error(cudaError_t code, const char* expression, const char* file, int line)
      : std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + expression +
                           ": " + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ")"),
        code_(code),
        file_(file),
        line_(line) {}

  [[nodiscard]] cudaError_t code() const noexcept { return code_; }
  [[nodiscard]] const char* file() const noexcept { return file_; }
  [[nodiscard]] int line() const noexcept { return line_; }

 private:
  cudaError_t code_;
  const char* file_;
  int line_;
};

namespace detail {
inline void cuda_try(cudaError_t code, const char* expression, const char* file, int line) {
  if (code != cudaSuccess) {
    // Clear the non-sticky error so that the next, unrelated check does not report it again.
    (void)cudaGetLastError();
    throw cuda_error(code, expression, file, line);
  }
}
}  // namespace detail

}  // namespace lookback

/// Throws lookback::cuda_error naming the call, the file and the line when `call` fails.
/// After a kernel launch, write LOOKBACK_CUDA_TRY(cudaGetLastError()).
#define LOOKBACK_CUDA_TRY(call) ::lookback::detail::cuda_try((call), #call, __FILE__, __LINE__)
