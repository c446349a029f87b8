// What a command reports for each kind of failure it can throw (cli/failure.hpp): its sysexits code and
// its one line. A GPU is never touched: the CUDA errors are made, not met.
#include <gtest/gtest.h>

#include <exception>
#include <new>
#include <stdexcept>
#include <string>

#include "cli/cli_error.hpp"
#include "cli/exit_codes.hpp"
#include "cli/failure.hpp"
#include "io/io_error.hpp"

#include <lookback/distributed/dist_error.hpp>
#include <lookback/pipelines/stream_error.hpp>
#include <lookback/primitives/error.cuh>

namespace {

namespace exit_code = lookback::cli::exit_code;
using lookback::cli::classify;
using lookback::cli::failure;
using lookback::pipelines::stream_error;

template <class E>
failure classify_thrown(const E& e) {
  try {
    throw e;
  } catch (...) {
    return classify(std::current_exception());
  }
}

// An allocation that fails on the device is out of memory, any other CUDA error a failure of ours,
// whether a call threw it directly or a streamed chunk did.
TEST(Failure, CudaErrorsDirectOrStreamed) {
  struct expected {
    cudaError_t code;
    int exit_code;
    const char* prefix;
  };
  for (const expected& e : {expected{cudaErrorMemoryAllocation, exit_code::os_error, "out of device memory: "},
                            expected{cudaErrorLaunchFailure, exit_code::software, "CUDA failure: "}}) {
    SCOPED_TRACE(cudaGetErrorName(e.code));
    const lookback::cuda_error direct(e.code, "cudaMalloc(&p, bytes)", "f.cu", 12);
    const failure f = classify_thrown(direct);
    EXPECT_EQ(f.exit_code, e.exit_code);
    EXPECT_EQ(f.message, std::string(e.prefix) + direct.what());

    const failure streamed = classify_thrown(stream_error(stream_error::kind::device, "chunk 3: failed", e.code));
    EXPECT_EQ(streamed.exit_code, e.exit_code);
    EXPECT_EQ(streamed.message, std::string(e.prefix) + "chunk 3: failed");
  }
}

TEST(Failure, StreamedReadsWritesAndBudgetsKeepTheirLine) {
  const failure read = classify_thrown(stream_error(stream_error::kind::read, "in.npy: the file shrank"));
  EXPECT_EQ(read.exit_code, exit_code::io_error);
  EXPECT_EQ(read.message, "in.npy: the file shrank");
  EXPECT_EQ(classify_thrown(stream_error(stream_error::kind::write, "out.npy: disk full")).exit_code, exit_code::io_error);
  EXPECT_EQ(classify_thrown(stream_error(stream_error::kind::budget, "too small")).exit_code, exit_code::usage);
}

TEST(Failure, UsageFilesAndHostMemory) {
  const failure missing =
      classify_thrown(lookback::io::io_error(lookback::io::error_kind::no_input, "in.npy", "no such file"));
  EXPECT_EQ(missing.exit_code, exit_code::no_input);
  EXPECT_EQ(missing.message, "in.npy: no such file");

  const failure usage = classify_thrown(lookback::cli::cli_error(exit_code::usage, "--kernel: must be odd"));
  EXPECT_EQ(usage.exit_code, exit_code::usage);
  EXPECT_EQ(usage.message, "--kernel: must be odd");
  EXPECT_FALSE(usage.agreed);

  const failure host = classify_thrown(std::bad_alloc());
  EXPECT_EQ(host.exit_code, exit_code::os_error);
  EXPECT_EQ(host.message, "out of host memory");

  const failure other = classify_thrown(std::runtime_error("something"));
  EXPECT_EQ(other.exit_code, exit_code::software);
  EXPECT_EQ(other.message, "something");
}

TEST(Failure, ADistributedFailureIsAgreedAndKeepsItsCode) {
  const failure oom = classify_thrown(lookback::dist::dist_error(2, "out of host memory", exit_code::os_error));
  EXPECT_EQ(oom.exit_code, exit_code::os_error);
  EXPECT_TRUE(oom.agreed);
  EXPECT_EQ(oom.message, "rank 2: out of host memory");

  const failure plain = classify_thrown(lookback::dist::dist_error(0, "failed"));
  EXPECT_EQ(plain.exit_code, exit_code::software);
  EXPECT_TRUE(plain.agreed);
}

TEST(Failure, AnythingElseThrownIsStillOneLine) {
  try {
    throw 42;
  } catch (...) {
    const failure f = classify(std::current_exception());
    EXPECT_EQ(f.exit_code, exit_code::software);
    EXPECT_EQ(f.message, "failed with an unknown exception");
  }
}

}  // namespace
