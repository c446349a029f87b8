#pragma once
// Shared by the GPU tests: skip cleanly without a device, fresh random data per run (the seed is
// printed so that a failure can be replayed with LOOKBACK_TEST_SEED), poisoned outputs.
#include "io/array.hpp"
#include "support/run_seed.hpp"
#include "typed/gpu_probe.hpp"
#include "typed/typed_ops.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace lookback::test {

class gpu_test : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const auto reason = typed::gpu_unavailable_reason()) GTEST_SKIP() << "GPU test skipped: " << *reason;
  }
};

/// For the pipelined kernels (bulk copies, thread-block barriers): skipped below sm_90 too.
class hopper_gpu_test : public gpu_test {
 protected:
  void SetUp() override {
    gpu_test::SetUp();
    if (IsSkipped()) return;
    int device = 0;
    int major = 0;
    ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
    ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), cudaSuccess);
    if (major < 9) GTEST_SKIP() << "the pipelined kernels need sm_90 or later";
  }
};

enum class distribution {
  small,     // integers in [-1000, 1000] ([0, 1000] unsigned), floats in [0, 1)
  signed_,   // floats in [-1, 1), integers over their whole range
  constant,  // every element the same
  whole,     // whole numbers in [-8, 8] ([0, 8] unsigned), so that float sums of up to millions are exact in any order
  // whole, with floats -0.0 in the first half (at least 40 items: runs over many tiles and chunks) and
  // every seventh: a float sum is -0.0 only where every term is, in any association, so correct sums
  // agree bit for bit, signs of zero included
  negative_zeros,
};

io::host_array random_array(io::dtype type, std::int64_t n, distribution d, std::mt19937_64& rng);

/// The most keys cub::DeviceRadixSort sorts with its single-tile kernel (CUDA 13.0, sm_90). That
/// kernel gives the two zeros of a descending float sort +0.0's pattern, its onesweep (larger inputs)
/// and ours -0.0's: a bit range without the sign bit shows the difference (README).
inline constexpr std::int64_t cub_single_tile_sort_items = 4864;

/// The byte every GPU output is filled with before a run, so unwritten elements show.
inline constexpr int poison_byte = 0xAB;

/// An element whose every byte is `byte`: what an element of an output filled with it holds until written.
template <class T>
T poisoned_element(int byte = poison_byte) {
  T x;
  std::memset(&x, byte, sizeof(T));
  return x;
}

/// The poison of an output checked within a tolerance: NaN for floating-point elements, which passes
/// none (poison_byte's float is about -1.2e-12, its double -1e-98, within a tolerance of an output near
/// zero), poison_byte for the rest.
inline constexpr int tolerance_poison(bool floating) { return floating ? 0xFF : poison_byte; }

/// Fills a device buffer before a run so that unwritten elements show (tolerance_poison).
template <class Buffer>
void poison(Buffer& d) {
  using T = std::remove_cv_t<std::remove_pointer_t<decltype(d.data())>>;
  d.fill_bytes(tolerance_poison(std::is_floating_point_v<T>));
}

/// Expects `call` to throw std::invalid_argument whose message contains `reason` (a null array's name,
/// or words of the check meant), so that a refusal for another reason does not pass.
template <class Call>
void expect_refused(const std::string& reason, Call&& call) {
  try {
    call();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << "refused, but not for \"" << reason
                                                                    << "\": " << e.what();
    return;
  }
  ADD_FAILURE() << "not refused; a refusal for \"" << reason << "\" was expected";
}

/// Storage a call that refuses its arguments first is given: plenty, never touched.
struct untouched_storage {
  std::size_t bytes = static_cast<std::size_t>(-1);
  void* get() { return &bytes; }
};

/// The poisons an output of `element_bytes`-wide elements is filled with, one run each. For 1- and
/// 2-byte elements poison_byte's pattern is a value the data holds, so an element never written whose
/// expected value is that pattern would pass; under the second poison it shows.
inline std::vector<int> poisons_for(std::size_t element_bytes) {
  if (element_bytes <= 2) return {poison_byte, 0x54};
  return {poison_byte};
}

}  // namespace lookback::test
