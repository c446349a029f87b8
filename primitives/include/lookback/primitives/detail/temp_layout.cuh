#pragma once
// Carves one caller-provided temporary allocation into aligned parts. The size query (null pointer)
// and the real call build the same layout from the same arguments, so they always agree; the total is
// never zero, so a real call can never be mistaken for a query. The parts start at the first 256-byte
// boundary of the caller's storage, and the total has room for that: storage carved from a larger
// allocation at any address serves (CUB's AliasTemporaries does the same), and every part is aligned
// for 16-byte descriptors and vector stores.
#include <lookback/primitives/detail/argument_checks.cuh>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

namespace lookback::detail {

class temp_layout {
 public:
  static constexpr std::size_t alignment = 256;

  temp_layout(std::initializer_list<std::size_t> sizes) : temp_layout(std::vector<std::size_t>(sizes)) {}
  explicit temp_layout(const std::vector<std::size_t>& sizes) {
    for (const std::size_t size : sizes) {
      offsets_.push_back(parts_bytes_);
      parts_bytes_ += (size + alignment - 1) / alignment * alignment;
    }
  }

  /// What a caller provides: the parts and the room to align their start.
  [[nodiscard]] std::size_t total() const { return parts_bytes_ + alignment; }
  /// From the first part's first byte to the last part's end.
  [[nodiscard]] std::size_t parts_bytes() const { return parts_bytes_; }
  /// The first part's first byte: the first 256-byte boundary at or past `base`.
  [[nodiscard]] void* start(void* base) const {
    const auto address = reinterpret_cast<std::uintptr_t>(base);
    return reinterpret_cast<void*>((address + alignment - 1) / alignment * alignment);
  }
  template <class T = void>
  [[nodiscard]] T* part(void* base, std::size_t i) const {
    return reinterpret_cast<T*>(static_cast<char*>(start(base)) + offsets_.at(i));
  }

  /// Writes the size when `d_temp` is null and returns true: the caller's query is answered.
  bool answer_query(void* d_temp, std::size_t& temp_bytes, const char* who) const {
    if (d_temp == nullptr) {
      temp_bytes = total();
      return true;
    }
    if (temp_bytes < total())
      throw std::invalid_argument(std::string(who) + ": temporary storage of " + std::to_string(temp_bytes) +
                                  " bytes is smaller than the " + std::to_string(total()) + " bytes needed");
    return false;
  }

 private:
  std::vector<std::size_t> offsets_;
  std::size_t parts_bytes_ = 0;
};

/// The tiles of Policy::tile_items items that num_items items fill, the last one maybe partly.
template <class Policy>
constexpr std::int64_t tile_count(std::int64_t num_items) {
  return (num_items + Policy::tile_items - 1) / Policy::tile_items;
}

}  // namespace lookback::detail
