// The out-of-device-memory message: its sizes in words, without a GPU. tests/gpu/test_device_memory.cpp
// checks the refusal itself on a device.
#include <gtest/gtest.h>

#include <cstddef>
#include <string>

#include "cli/device_memory.hpp"

namespace {

using lookback::cli::byte_size_text;
using lookback::cli::device_memory_message;

constexpr std::size_t KiB = 1024, MiB = KiB * 1024, GiB = MiB * 1024;

TEST(ByteSizeText, BytesBelowOneKibibyte) {
  EXPECT_EQ(byte_size_text(0), "0 bytes");
  EXPECT_EQ(byte_size_text(1), "1 byte");
  EXPECT_EQ(byte_size_text(1023), "1023 bytes");
}

TEST(ByteSizeText, OneDecimalInTheLargestUnitNotAbove) {
  EXPECT_EQ(byte_size_text(KiB), "1.0 KiB");
  EXPECT_EQ(byte_size_text(1536), "1.5 KiB");
  EXPECT_EQ(byte_size_text(512 * MiB), "512.0 MiB");
  EXPECT_EQ(byte_size_text(12 * GiB), "12.0 GiB");
  EXPECT_EQ(byte_size_text(7 * GiB + 900 * MiB), "7.9 GiB");
}

TEST(ByteSizeText, RoundingToTheNextUnitMovesUp) {
  EXPECT_EQ(byte_size_text(MiB - 1), "1.0 MiB");
  EXPECT_EQ(byte_size_text(GiB - MiB / 32), "1.0 GiB");
  EXPECT_EQ(byte_size_text(GiB - 60 * MiB), "964.0 MiB");
}

TEST(ByteSizeText, GibibytesAreTheLargestUnit) {
  EXPECT_EQ(byte_size_text(std::size_t{4096} * GiB), "4096.0 GiB");
}

TEST(DeviceMemoryMessage, NamesWhatItNeedsAndWhatIsFree) {
  EXPECT_EQ(device_memory_message(12 * GiB, 7 * GiB + 900 * MiB, "NVIDIA H100 80GB HBM3",
                                  "input, output and temporary storage"),
            "needs 12.0 GiB of device memory (input, output and temporary storage); 7.9 GiB free on NVIDIA H100 80GB "
            "HBM3");
}

TEST(DeviceMemoryMessage, ExactBytesWhereTheSizesWouldReadTheSame) {
  EXPECT_EQ(device_memory_message(GiB + 1, GiB, "GPU", "input"),
            "needs 1073741825 bytes of device memory (input); 1073741824 bytes free on GPU");
}

TEST(DeviceMemoryMessage, IsOneLine) {
  const std::string message = device_memory_message(3 * GiB, MiB, "GPU", "input, output and temporary storage");
  EXPECT_EQ(message.find('\n'), std::string::npos);
}

}  // namespace
