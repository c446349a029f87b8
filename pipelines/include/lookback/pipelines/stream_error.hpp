#pragma once
// The one exception the streaming layer throws for a failure in the middle of a run: a read or write
// that failed or came up short, a CUDA failure in a chunk, or budgets too small for one chunk. The
// message is one line naming the file (for reads and writes) and the chunk.
#include <stdexcept>
#include <string>

namespace lookback::pipelines {

class stream_error : public std::runtime_error {
 public:
  enum class kind {
    read,        // a source's read failed or the file shrank
    write,       // a sink's write failed (disk full, file size limit)
    device,      // a CUDA call or kernel failed during a chunk
    budget,      // the device or host budget cannot hold one chunk
  };
  stream_error(kind k, const std::string& message, int cuda_code = 0)
      : std::runtime_error(message), kind_(k), cuda_code_(cuda_code) {}
  [[nodiscard]] kind what_failed() const noexcept { return kind_; }
  /// The cudaError_t of a device failure (cudaErrorMemoryAllocation: out of device memory), else 0.
  [[nodiscard]] int cuda_code() const noexcept { return cuda_code_; }

 private:
  kind kind_;
  int cuda_code_;
};

}  // namespace lookback::pipelines
