#pragma once
// Per-tile descriptors of the single-pass scan: each tile publishes its aggregate as soon as it is
// known, then its inclusive prefix once its look-back is done. All-zero bytes mean "not ready", so
// one clearing of the bytes resets the whole array before a launch (detail/clear_then_launch.cuh).
#include <cuda/atomic>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace lookback::tile {

enum class status : unsigned { not_ready = 0, aggregate = 1, inclusive_prefix = 2 };

/// How a tile's status and value reach other blocks.
enum class descriptor {
  packed64,   // value of at most 4 bytes and status in one 64-bit word
  packed128,  // value of at most 8 bytes and status in one 16-byte word
  fenced,     // any value: value, release fence, then status
};

/// The fastest descriptor a value type allows (bench/scan_tuning_bench.cu measures the choice).
template <class T>
inline constexpr descriptor default_descriptor =
    sizeof(T) <= 4 ? descriptor::packed64 : sizeof(T) <= 8 ? descriptor::packed128 : descriptor::fenced;

template <class T, descriptor Kind = default_descriptor<T>>
class status_array;

/// One relaxed store publishes value and status together, so a reader can never see a status with a
/// stale value, and no fence is needed. The word also carries an epoch: a descriptor written under
/// another epoch reads as not ready, so launches that reuse the array with epochs 0, 1, 2, ... need
/// it zeroed only before the first (the radix sort's digit passes: one reset instead of one a pass).
template <class T>
class status_array<T, descriptor::packed64> {
  static_assert(sizeof(T) <= 4, "packed64 holds values of at most 4 bytes");

 public:
  static std::size_t bytes_for(std::int64_t tiles) { return static_cast<std::size_t>(tiles) * sizeof(word); }
  explicit status_array(void* d_storage, std::int64_t /*tiles*/, unsigned epoch = 0)
      : d_words_(static_cast<word*>(d_storage)), epoch_bits_(epoch << 2) {}

  __device__ void publish(std::int64_t tile, status st, const T& value) const {
    unsigned bits = 0;
    memcpy(&bits, &value, sizeof(T));
    ref(tile).store((word(bits) << 32) | epoch_bits_ | static_cast<unsigned>(st), cuda::std::memory_order_relaxed);
  }

  __device__ status read(std::int64_t tile, T& value) const {
    const word w = ref(tile).load(cuda::std::memory_order_relaxed);
    const auto bits = static_cast<unsigned>(w >> 32);
    memcpy(&value, &bits, sizeof(T));
    const auto flag = static_cast<unsigned>(w);
    return (flag & ~3u) == epoch_bits_ ? static_cast<status>(flag & 3u) : status::not_ready;
  }

 private:
  using word = unsigned long long;
  __device__ cuda::atomic_ref<word, cuda::thread_scope_device> ref(std::int64_t tile) const {
    return cuda::atomic_ref<word, cuda::thread_scope_device>(d_words_[tile]);
  }
  word* d_words_;
  unsigned epoch_bits_;
};

/// The 8-byte analogue of packed64: status and value in one 16-byte aligned word, moved by one
/// 16-byte load or store. The PTX memory model promises single-copy atomicity only per 8-byte element
/// of a vector access; the hardware moves an aligned 16-byte vector in one transaction, which CUB's
/// tile state relies on too, and the stress test checks it on every run.
template <class T>
class status_array<T, descriptor::packed128> {
  static_assert(sizeof(T) <= 8, "packed128 holds values of at most 8 bytes");

 public:
  static std::size_t bytes_for(std::int64_t tiles) { return static_cast<std::size_t>(tiles) * 16; }
  explicit status_array(void* d_storage, std::int64_t /*tiles*/) : d_words_(static_cast<unsigned long long*>(d_storage)) {}

  __device__ void publish(std::int64_t tile, status st, const T& value) const {
    unsigned long long bits = 0;
    memcpy(&bits, &value, sizeof(T));
    const unsigned long long flag = static_cast<unsigned>(st);
    asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(d_words_ + 2 * tile), "l"(flag), "l"(bits)
                 : "memory");
  }

  __device__ status read(std::int64_t tile, T& value) const {
    unsigned long long flag = 0;
    unsigned long long bits = 0;
    asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(flag), "=l"(bits) : "l"(d_words_ + 2 * tile)
                 : "memory");
    memcpy(&value, &bits, sizeof(T));
    return static_cast<status>(static_cast<unsigned>(flag));
  }

 private:
  unsigned long long* d_words_;
};

/// Wider values: the value goes to its own slot (aggregate and inclusive prefix apart, so a reader
/// that saw "aggregate" cannot read a half-replaced value), then a release store of the status; the
/// reader loads the status with acquire and the value through L2, bypassing the incoherent L1.
template <class T>
class status_array<T, descriptor::fenced> {
  static_assert(sizeof(T) % 4 == 0, "wide tile values must be a whole number of 32-bit words");

 public:
  static std::size_t bytes_for(std::int64_t tiles) {
    return values_offset(tiles) + 2 * static_cast<std::size_t>(tiles) * sizeof(T);
  }
  explicit status_array(void* d_storage, std::int64_t tiles)
      : d_status_(static_cast<unsigned*>(d_storage)),
        d_aggregate_(reinterpret_cast<T*>(static_cast<char*>(d_storage) + values_offset(tiles))),
        d_inclusive_(d_aggregate_ + tiles) {}

  __device__ void publish(std::int64_t tile, status st, const T& value) const {
    T* slot = (st == status::aggregate ? d_aggregate_ : d_inclusive_) + tile;
    unsigned words[sizeof(T) / 4];
    memcpy(words, &value, sizeof(T));
#pragma unroll
    for (std::size_t w = 0; w < sizeof(T) / 4; ++w) __stcg(reinterpret_cast<unsigned*>(slot) + w, words[w]);
    ref(tile).store(static_cast<unsigned>(st), cuda::std::memory_order_release);
  }

  __device__ status read(std::int64_t tile, T& value) const {
    const auto st = static_cast<status>(ref(tile).load(cuda::std::memory_order_acquire));
    if (st == status::not_ready) return st;
    const T* slot = (st == status::aggregate ? d_aggregate_ : d_inclusive_) + tile;
    unsigned words[sizeof(T) / 4];
#pragma unroll
    for (std::size_t w = 0; w < sizeof(T) / 4; ++w) words[w] = __ldcg(reinterpret_cast<const unsigned*>(slot) + w);
    memcpy(&value, words, sizeof(T));
    return st;
  }

 private:
  static std::size_t values_offset(std::int64_t tiles) {
    const std::size_t align = alignof(T) > 16 ? alignof(T) : 16;
    return (static_cast<std::size_t>(tiles) * sizeof(unsigned) + align - 1) / align * align;
  }
  __device__ cuda::atomic_ref<unsigned, cuda::thread_scope_device> ref(std::int64_t tile) const {
    return cuda::atomic_ref<unsigned, cuda::thread_scope_device>(d_status_[tile]);
  }
  unsigned* d_status_;
  T* d_aggregate_;
  T* d_inclusive_;
};

}  // namespace lookback::tile
