#pragma once
// The small interface every distributed algorithm is written against (after RAFT's comms): a few
// collectives on buffers in the communicator's memory (device memory for NCCL, host memory for MPI),
// ordered on the caller's stream, plus small host-side exchanges that steer the algorithms (counts,
// failures). Two implementations: nccl_communicator.hpp and mpi_communicator.hpp.
#include <lookback/distributed/dist_error.hpp>
#include <lookback/primitives/error.cuh>
#include <lookback/primitives/out_of_memory.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

namespace lookback {
struct sum;
struct minimum;
struct maximum;
}  // namespace lookback

namespace lookback::dist {

enum class datatype { int8, uint8, int32, uint32, int64, uint64, float32, float64 };
enum class reduce_op { sum, min, max };

template <class T>
constexpr datatype datatype_of() {
  if constexpr (std::is_same_v<T, float>) return datatype::float32;
  else if constexpr (std::is_same_v<T, double>) return datatype::float64;
  else {
    static_assert(std::is_integral_v<T> && (sizeof(T) == 1 || sizeof(T) == 4 || sizeof(T) == 8),
                  "collectives take 1-byte, 4- and 8-byte integers, float and double");
    if constexpr (sizeof(T) == 1) return std::is_signed_v<T> ? datatype::int8 : datatype::uint8;
    else if constexpr (sizeof(T) == 4) return std::is_signed_v<T> ? datatype::int32 : datatype::uint32;
    else return std::is_signed_v<T> ? datatype::int64 : datatype::uint64;
  }
}

/// The collective form of lookback's operators; other operators have none.
template <class Op>
constexpr reduce_op reduce_op_of() {
  if constexpr (std::is_same_v<Op, lookback::sum>) return reduce_op::sum;
  else if constexpr (std::is_same_v<Op, lookback::minimum>) return reduce_op::min;
  else {
    static_assert(std::is_same_v<Op, lookback::maximum>, "distributed reduce takes lookback::sum, minimum or maximum");
    return reduce_op::max;
  }
}

class communicator {
 public:
  virtual ~communicator() = default;
  [[nodiscard]] virtual int rank() const = 0;
  [[nodiscard]] virtual int size() const = 0;
  /// recv[i] = send[i] combined over every rank (send may equal recv).
  virtual void allreduce(const void* send, void* recv, std::size_t count, datatype type, reduce_op op,
                         cudaStream_t stream) = 0;
  /// Every rank's `bytes` from send into recv, in rank order.
  virtual void allgather(const void* send, void* recv, std::size_t bytes, cudaStream_t stream) = 0;
  /// send_counts[j] items from send + send_offsets[j] go to rank j, which receives them at
  /// recv + its recv_offsets[this rank]. Counts and offsets are host arrays of size() items.
  virtual void alltoallv(const void* send, const std::int64_t* send_counts, const std::int64_t* send_offsets,
                         void* recv, const std::int64_t* recv_counts, const std::int64_t* recv_offsets,
                         std::size_t item_bytes, cudaStream_t stream) = 0;
  /// Every rank's `bytes` of host memory into recv, in rank order, at once (no stream).
  virtual void allgather_host(const void* send, void* recv, std::size_t bytes) = 0;
  /// Waits for the stream, boundedly: a peer's failure or the communicator's timeout aborts the
  /// communicator and throws dist_error instead of hanging.
  virtual void sync_stream(cudaStream_t stream) = 0;
  /// Ends the communicator's pending and future collectives with an error, on every rank.
  virtual void abort() noexcept = 0;
};

/// One host value from every rank, in rank order.
template <class T>
[[nodiscard]] std::vector<T> allgather_host(communicator& comm, const T& value) {
  static_assert(std::is_trivially_copyable_v<T>);
  std::vector<T> all(static_cast<std::size_t>(comm.size()));
  comm.allgather_host(&value, all.data(), sizeof(T));
  return all;
}

template <class T>
void allreduce(communicator& comm, const T* send, T* recv, std::size_t count, reduce_op op, cudaStream_t stream) {
  comm.allreduce(send, recv, count, datatype_of<T>(), op, stream);
}

/// Every rank passes its own failure (empty: none) and its exit code. When any rank failed, every
/// rank throws the same dist_error, naming the lowest failing rank and its cause; else all go on.
inline void agree(communicator& comm, const std::string& failure, int exit_code = 0) {
  struct verdict {
    int failed;
    int exit_code;
    char cause[504];
  };
  verdict mine{failure.empty() ? 0 : 1, exit_code, {}};
  std::strncpy(mine.cause, failure.c_str(), sizeof(mine.cause) - 1);
  const std::vector<verdict> all = allgather_host(comm, mine);
  for (std::size_t r = 0; r < all.size(); ++r)
    if (all[r].failed != 0)
      throw dist_error(static_cast<int>(r), std::string(all[r].cause, strnlen(all[r].cause, sizeof(all[r].cause))),
                       all[r].exit_code);
}

/// Runs one rank's local step, then agrees with the others, so that a failure on any rank stops every
/// rank at the same point, before the next collective could wait for the failed one. A dist_error
/// passes through: every rank threw it at the same agreement. Running out of host or device memory
/// travels as EX_OSERR, so that a command reports it as it does a single process's; other failures
/// carry no exit code of their own.
template <class F>
void guarded(communicator& comm, F&& step) {
  std::string failure;
  int exit_code = 0;
  try {
    step();
  } catch (const dist_error&) {
    throw;
  } catch (const std::bad_alloc&) {
    failure = out_of_host_memory;
    exit_code = out_of_memory_exit_code;
  } catch (const cuda_error& e) {
    failure = e.what();
    if (e.code() == cudaErrorMemoryAllocation) {
      failure = out_of_device_memory(failure);
      exit_code = out_of_memory_exit_code;
    }
  } catch (const std::exception& e) {
    failure = e.what();
    if (failure.empty()) failure = "failed";
  } catch (...) {
    failure = "failed with an unknown exception";
  }
  agree(comm, failure, exit_code);
}

}  // namespace lookback::dist
