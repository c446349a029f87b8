#pragma once
// The communicator over MPI, for host data: the CPU backend's ranks on one host or many. With
// memory::device it also carries device buffers, staged through host memory (slow, but MPI needs no
// GPU of its own per rank, so several ranks can share one GPU: how the device backend's multi-rank
// paths are tested on a machine with one GPU, where NCCL refuses a second rank).
#include <lookback/distributed/communicator.hpp>
#include <lookback/primitives/error.cuh>

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>
#include <vector>

namespace lookback::dist {

namespace detail {
inline void mpi_try(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(std::string(call) + " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

inline MPI_Datatype mpi_type(datatype type) {
  switch (type) {
    case datatype::int8: return MPI_INT8_T;
    case datatype::uint8: return MPI_UINT8_T;
    case datatype::int32: return MPI_INT32_T;
    case datatype::uint32: return MPI_UINT32_T;
    case datatype::int64: return MPI_INT64_T;
    case datatype::uint64: return MPI_UINT64_T;
    case datatype::float32: return MPI_FLOAT;
    case datatype::float64: return MPI_DOUBLE;
  }
  throw std::invalid_argument("unknown datatype");
}

inline std::size_t type_bytes(datatype type) {
  switch (type) {
    case datatype::int8: case datatype::uint8: return 1;
    case datatype::int32: case datatype::uint32: case datatype::float32: return 4;
    default: return 8;
  }
}

inline MPI_Op mpi_op(reduce_op op) {
  switch (op) {
    case reduce_op::sum: return MPI_SUM;
    case reduce_op::min: return MPI_MIN;
    case reduce_op::max: return MPI_MAX;
  }
  throw std::invalid_argument("unknown reduce_op");
}
}  // namespace detail

#define LOOKBACK_MPI_TRY(call) ::lookback::dist::detail::mpi_try((call), #call)

class mpi_communicator final : public communicator {
 public:
  enum class memory { host, device };

  /// Works on a duplicate of `comm`, so that its messages never meet the caller's.
  explicit mpi_communicator(MPI_Comm comm, memory where = memory::host) : memory_(where) {
    LOOKBACK_MPI_TRY(MPI_Comm_dup(comm, &comm_));
    // MPI's default handler aborts the job on any error; returning the code lets LOOKBACK_MPI_TRY
    // report it as a one-line error that the ranks agree on.
    LOOKBACK_MPI_TRY(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
    LOOKBACK_MPI_TRY(MPI_Comm_rank(comm_, &rank_));
    LOOKBACK_MPI_TRY(MPI_Comm_size(comm_, &size_));
  }
  ~mpi_communicator() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&comm_);
  }
  mpi_communicator(const mpi_communicator&) = delete;
  mpi_communicator& operator=(const mpi_communicator&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  void allreduce(const void* send, void* recv, std::size_t count, datatype type, reduce_op op,
                 cudaStream_t stream) override {
    const std::size_t bytes = count * detail::type_bytes(type);
    staged in(*this, send, bytes, stream), out(*this, recv, bytes, stream);
    const auto* from = static_cast<const std::byte*>(in.host_in());
    auto* to = static_cast<std::byte*>(out.host_out());
    for (std::size_t done = 0; done < count;) {
      const std::size_t part = std::min<std::size_t>(count - done, INT_MAX);
      const std::size_t at = done * detail::type_bytes(type);
      LOOKBACK_MPI_TRY(MPI_Allreduce(from == to ? MPI_IN_PLACE : from + at, to + at, static_cast<int>(part),
                                     detail::mpi_type(type), detail::mpi_op(op), comm_));
      done += part;
    }
    out.write_back();
  }

  void allgather(const void* send, void* recv, std::size_t bytes, cudaStream_t stream) override {
    staged in(*this, send, bytes, stream), out(*this, recv, bytes * static_cast<std::size_t>(size_), stream);
    allgather_bytes(in.host_in(), out.host_out(), bytes);
    out.write_back();
  }

  void alltoallv(const void* send, const std::int64_t* send_counts, const std::int64_t* send_offsets, void* recv,
                 const std::int64_t* recv_counts, const std::int64_t* recv_offsets, std::size_t item_bytes,
                 cudaStream_t stream) override {
    std::int64_t send_items = 0, recv_items = 0;
    for (int j = 0; j < size_; ++j) {
      send_items = std::max(send_items, send_offsets[j] + send_counts[j]);
      recv_items = std::max(recv_items, recv_offsets[j] + recv_counts[j]);
    }
    staged in(*this, send, static_cast<std::size_t>(send_items) * item_bytes, stream);
    staged out(*this, recv, static_cast<std::size_t>(recv_items) * item_bytes, stream);
    MPI_Datatype item;
    LOOKBACK_MPI_TRY(MPI_Type_contiguous(static_cast<int>(item_bytes), MPI_BYTE, &item));
    LOOKBACK_MPI_TRY(MPI_Type_commit(&item));
    try {
      // Every rank must take the same path (a collective on one, point to point on another never
      // match): the collective only where no rank's offsets pass what an int holds.
      int local_wide = std::max(send_items, recv_items) > INT_MAX ? 1 : 0, any_wide = 0;
      LOOKBACK_MPI_TRY(MPI_Allreduce(&local_wide, &any_wide, 1, MPI_INT, MPI_MAX, comm_));
      if (any_wide == 0) {
        std::vector<int> sc(size_), so(size_), rc(size_), ro(size_);
        for (int j = 0; j < size_; ++j) {
          sc[j] = static_cast<int>(send_counts[j]);
          so[j] = static_cast<int>(send_offsets[j]);
          rc[j] = static_cast<int>(recv_counts[j]);
          ro[j] = static_cast<int>(recv_offsets[j]);
        }
        LOOKBACK_MPI_TRY(MPI_Alltoallv(in.host_in(), sc.data(), so.data(), item, out.host_out(), rc.data(), ro.data(),
                                       item, comm_));
      } else {
        // Offsets past what an int holds: point to point, in messages of at most INT_MAX items.
        std::vector<MPI_Request> requests;
        const auto* from = static_cast<const std::byte*>(in.host_in());
        auto* to = static_cast<std::byte*>(out.host_out());
        for (int j = 0; j < size_; ++j) {
          for (std::int64_t done = 0; done < recv_counts[j]; done += INT_MAX)
            requests.push_back(post_recv(to + (recv_offsets[j] + done) * item_bytes,
                                         std::min<std::int64_t>(INT_MAX, recv_counts[j] - done), item, j));
          for (std::int64_t done = 0; done < send_counts[j]; done += INT_MAX)
            requests.push_back(post_send(from + (send_offsets[j] + done) * item_bytes,
                                         std::min<std::int64_t>(INT_MAX, send_counts[j] - done), item, j));
        }
        LOOKBACK_MPI_TRY(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE));
      }
    } catch (...) {
      MPI_Type_free(&item);
      throw;
    }
    MPI_Type_free(&item);
    out.write_back();
  }

  void allgather_host(const void* send, void* recv, std::size_t bytes) override { allgather_bytes(send, recv, bytes); }

  void sync_stream(cudaStream_t stream) override {
    if (memory_ == memory::device) LOOKBACK_CUDA_TRY(cudaStreamSynchronize(stream));
  }

  /// MPI has no way to end one communicator's collectives: this ends the job, on every rank.
  void abort() noexcept override { MPI_Abort(comm_, 70); }

 private:
  /// A buffer as MPI sees it: the caller's host memory itself, or a host copy of device memory.
  class staged {
   public:
    staged(mpi_communicator& comm, const void* buffer, std::size_t bytes, cudaStream_t stream)
        : buffer_(const_cast<void*>(buffer)), stream_(stream), device_(comm.memory_ == memory::device), bytes_(bytes) {
      if (device_) copy_.resize(bytes);
    }
    const void* host_in() {
      if (device_ && bytes_ != 0) {
        LOOKBACK_CUDA_TRY(cudaMemcpyAsync(copy_.data(), buffer_, bytes_, cudaMemcpyDeviceToHost, stream_));
        LOOKBACK_CUDA_TRY(cudaStreamSynchronize(stream_));
      }
      return device_ ? static_cast<const void*>(copy_.data()) : buffer_;
    }
    void* host_out() { return device_ ? static_cast<void*>(copy_.data()) : buffer_; }
    void write_back() {
      if (!device_ || bytes_ == 0) return;
      LOOKBACK_CUDA_TRY(cudaMemcpyAsync(buffer_, copy_.data(), bytes_, cudaMemcpyHostToDevice, stream_));
      LOOKBACK_CUDA_TRY(cudaStreamSynchronize(stream_));
    }

   private:
    void* buffer_;
    cudaStream_t stream_;
    bool device_;
    std::size_t bytes_;
    std::vector<std::byte> copy_;
  };

  void allgather_bytes(const void* send, void* recv, std::size_t bytes) {
    if (bytes > INT_MAX) throw std::length_error("mpi_communicator::allgather: more than INT_MAX bytes a rank");
    LOOKBACK_MPI_TRY(MPI_Allgather(send, static_cast<int>(bytes), MPI_BYTE, recv, static_cast<int>(bytes), MPI_BYTE, comm_));
  }

  MPI_Request post_recv(void* at, std::int64_t count, MPI_Datatype item, int peer) {
    MPI_Request request;
    LOOKBACK_MPI_TRY(MPI_Irecv(at, static_cast<int>(count), item, peer, 0, comm_, &request));
    return request;
  }
  MPI_Request post_send(const void* at, std::int64_t count, MPI_Datatype item, int peer) {
    MPI_Request request;
    LOOKBACK_MPI_TRY(MPI_Isend(at, static_cast<int>(count), item, peer, 0, comm_, &request));
    return request;
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  memory memory_;
};

}  // namespace lookback::dist
