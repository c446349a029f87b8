// The commands' GPU path refuses work larger than the device's free memory before it allocates or
// launches anything, in one line naming both sizes, and leaves nothing allocated: the next call runs.
// One request of twice the device's memory is the only oversized one; nothing here allocates it.
#include "cli/array_ops.hpp"
#include "cli/device_memory.hpp"
#include "cli/gpu_run.hpp"
#include "support/gpu_test.hpp"

#include <cstdint>
#include <regex>
#include <string>
#include <vector>

namespace lookback::test {
namespace {

class device_memory : public gpu_test {};

std::size_t total_device_memory() {
  std::size_t free_bytes = 0, total_bytes = 0;
  EXPECT_EQ(cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
  return total_bytes;
}

/// Bytes the stream-ordered pool has handed out and not taken back.
std::uint64_t pool_bytes_in_use() {
  int device = 0;
  cudaMemPool_t pool{};
  std::uint64_t used = 0;
  EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
  EXPECT_EQ(cudaDeviceGetMemPool(&pool, device), cudaSuccess);
  EXPECT_EQ(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used), cudaSuccess);
  return used;
}

TEST_F(device_memory, TwiceTheDeviceIsRefusedBeforeAnyWorkAndTheNextCallRuns) {
  const std::size_t total = total_device_memory();
  std::mt19937_64 rng = make_rng(71);
  const io::host_array input = random_array(io::dtype::int32, 1000, distribution::small, rng);
  const std::uint64_t in_use_before = pool_bytes_in_use();

  int launches = 0;
  // An implementation whose size query asks for twice the device's memory as temporary storage.
  const cli::gpu_call greedy = [&](typed::implementation, void* d_temp, std::size_t& temp_bytes, const void*, void*,
                                   cudaStream_t) {
    if (d_temp == nullptr)
      temp_bytes = 2 * total;
    else
      ++launches;
  };
  try {
    (void)cli::run_on_gpu(input, input.bytes.size(), greedy, false, nullptr);
    ADD_FAILURE() << "run_on_gpu took twice the device's memory";
  } catch (const cli::cli_error& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.exit_code(), cli::exit_code::os_error);
    const std::string needed = cli::byte_size_text(2 * total + 2 * input.bytes.size());
    EXPECT_EQ(message.rfind("needs " + needed + " of device memory (input, output and temporary storage); ", 0), 0u)
        << message;
    EXPECT_TRUE(std::regex_search(message, std::regex("; [0-9]+(\\.[0-9])? (GiB|MiB|KiB|bytes?) free on .+$")))
        << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  EXPECT_EQ(launches, 0);
  EXPECT_EQ(pool_bytes_in_use(), in_use_before);

  const typed::scan_spec spec{io::dtype::int32, typed::op_kind::sum, true, {}};
  const cli::op_result r = cli::scan_array(input, spec, cli::backend::gpu, true);
  std::vector<std::byte> expected(input.bytes.size());
  typed::scan_cpu(spec, input.bytes.data(), expected.data(), input.size());
  EXPECT_EQ(r.output.bytes, expected);
  ASSERT_TRUE(r.verified.has_value());
  EXPECT_FALSE(r.verified->mismatch.has_value());
}

TEST_F(device_memory, SmallRequestsPass) {
  EXPECT_NO_THROW(cli::ensure_device_memory(1 << 20, "one mebibyte"));
  EXPECT_GT(cli::device_memory_available(), std::size_t{1} << 20);
}

TEST_F(device_memory, AFailedAllocationReadsAsOutOfDeviceMemory) {
  try {
    cli::within_device_memory(1, "one byte", [] {
      throw cuda_error(cudaErrorMemoryAllocation, "cudaMallocAsync(...)", __FILE__, __LINE__);
    });
    ADD_FAILURE() << "the allocation failure was not reported";
  } catch (const cli::cli_error& e) {
    EXPECT_EQ(e.exit_code(), cli::exit_code::os_error);
    EXPECT_EQ(std::string(e.what()).rfind("device allocation failed: needs 1 byte of device memory (one byte); ", 0), 0u)
        << e.what();
  }
}

TEST_F(device_memory, OtherCudaFailuresPassThrough) {
  EXPECT_THROW(cli::within_device_memory(1, "one byte",
                                         [] { throw cuda_error(cudaErrorInvalidValue, "cudaMemcpyAsync(...)", __FILE__, __LINE__); }),
               cuda_error);
}

}  // namespace
}  // namespace lookback::test
