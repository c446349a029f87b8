#pragma once
// Carves one caller-provided temporary allocation into aligned parts. The size query (null pointer)
// and the real call build the same layout from the same arguments, so they always agree; the total is
// never zero, so a real call can never be mistaken for a query.
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
      offsets_.push_back(total_);
      total_ += (size + alignment - 1) / alignment * alignment;
    }
    if (total_ == 0) total_ = alignment;
  }

  [[nodiscard]] std::size_t total() const { return total_; }
  template <class T = void>
  [[nodiscard]] T* part(void* base, std::size_t i) const {
    return reinterpret_cast<T*>(static_cast<char*>(base) + offsets_.at(i));
  }

  /// Writes the size when `d_temp` is null and returns true: the caller's query is answered.
  bool answer_query(void* d_temp, std::size_t& temp_bytes, const char* who) const {
    if (d_temp == nullptr) {
      temp_bytes = total_;
      return true;
    }
    if (temp_bytes < total_)
      throw std::invalid_argument(std::string(who) + ": temporary storage of " + std::to_string(temp_bytes) +
                                  " bytes is smaller than the " + std::to_string(total_) + " bytes needed");
    return false;
  }

 private:
  std::vector<std::size_t> offsets_;
  std::size_t total_ = 0;
};

/// The tiles of Policy::tile_items items that num_items items fill, the last one maybe partly.
template <class Policy>
constexpr std::int64_t tile_count(std::int64_t num_items) {
  return (num_items + Policy::tile_items - 1) / Policy::tile_items;
}

/// Bytes for `count` items of T placed by align_for in storage of any alignment (a caller's storage
/// may be carved from a larger allocation).
template <class T>
constexpr std::size_t aligned_array_bytes(std::size_t count) {
  return count * sizeof(T) + alignof(T);
}

/// The first address at or past `p` aligned for T.
template <class T>
T* align_for(void* p) {
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  return reinterpret_cast<T*>((address + alignof(T) - 1) / alignof(T) * alignof(T));
}

inline void check_item_count(long long n, const char* who) {
  if (n < 0) throw std::invalid_argument(std::string(who) + ": negative item count " + std::to_string(n));
}

}  // namespace lookback::detail
