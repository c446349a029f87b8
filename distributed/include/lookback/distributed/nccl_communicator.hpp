#pragma once
// The communicator over NCCL, for device data: collectives and grouped send/receive on the caller's
// stream. Its host-side exchanges (counts, failures) go through a control plane that needs no GPU
// work: the threads of one process (thread_group), or MPI when each rank is a process
// (nccl_over_mpi.hpp). Every wait once the communicator is made is bounded: a peer's failure or the
// timeout aborts it. Making it is not: ncclCommInitRank waits for every rank (nccl_rank_over agrees on
// each step before it, so a rank that fails one stops them all there instead).
#include <lookback/distributed/communicator.hpp>
#include <lookback/distributed/thread_group.hpp>
#include <lookback/primitives/error.cuh>

#include <nccl.h>

#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace lookback::dist {

namespace detail {
inline void nccl_try(ncclResult_t code, const char* call, ncclComm_t comm = nullptr) {
  if (code == ncclSuccess) return;
  std::string text = std::string(call) + " failed: " + ncclGetErrorString(code);
  if (const char* last = ncclGetLastError(comm); last != nullptr && *last != '\0') text += " (" + std::string(last) + ")";
  throw std::runtime_error(text);
}

inline ncclDataType_t nccl_type(datatype type) {
  switch (type) {
    case datatype::int8: return ncclInt8;
    case datatype::uint8: return ncclUint8;
    case datatype::int32: return ncclInt32;
    case datatype::uint32: return ncclUint32;
    case datatype::int64: return ncclInt64;
    case datatype::uint64: return ncclUint64;
    case datatype::float32: return ncclFloat32;
    case datatype::float64: return ncclFloat64;
  }
  throw std::invalid_argument("unknown datatype");
}

inline ncclRedOp_t nccl_op(reduce_op op) {
  switch (op) {
    case reduce_op::sum: return ncclSum;
    case reduce_op::min: return ncclMin;
    case reduce_op::max: return ncclMax;
  }
  throw std::invalid_argument("unknown reduce_op");
}
}  // namespace detail

#define LOOKBACK_NCCL_TRY(call) ::lookback::dist::detail::nccl_try((call), #call, comm_)

/// "2.28.3", of the NCCL library loaded.
inline std::string nccl_version() {
  int code = 0;
  detail::nccl_try(ncclGetVersion(&code), "ncclGetVersion");
  return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." + std::to_string(code % 100);
}

class nccl_communicator final : public communicator {
 public:
  using host_allgather = std::function<void(const void* send, void* recv, std::size_t bytes)>;

  /// Owns `comm` once made (destroyed at the end, or aborted after a failure); a constructor that
  /// throws leaves it to the caller. The rank's thread must have `device` current when it calls in.
  nccl_communicator(ncclComm_t comm, int device, host_allgather control,
                    std::chrono::milliseconds timeout = default_timeout())
      : comm_(comm), device_(device), control_(std::move(control)), timeout_(timeout) {
    LOOKBACK_NCCL_TRY(ncclCommUserRank(comm_, &rank_));
    LOOKBACK_NCCL_TRY(ncclCommCount(comm_, &size_));
  }
  ~nccl_communicator() override {
    if (!aborted_) (void)ncclCommDestroy(comm_);  // a destructor has no one to report to
  }
  nccl_communicator(const nccl_communicator&) = delete;
  nccl_communicator& operator=(const nccl_communicator&) = delete;

  /// One process driving `devices` (ncclCommInitAll): rank r on devices[r], each used from its own
  /// host thread, their host-side exchanges through one thread_group.
  static std::vector<std::unique_ptr<nccl_communicator>> for_devices(const std::vector<int>& devices,
                                                                    std::chrono::milliseconds timeout = default_timeout()) {
    std::vector<ncclComm_t> comms(devices.size());
    detail::nccl_try(ncclCommInitAll(comms.data(), static_cast<int>(devices.size()), devices.data()), "ncclCommInitAll");
    std::vector<std::unique_ptr<nccl_communicator>> out;
    try {
      auto group = std::make_shared<thread_group>(static_cast<int>(devices.size()), timeout);
      out.reserve(devices.size());  // so that a push_back cannot throw once a communicator is made
      for (std::size_t r = 0; r < devices.size(); ++r)
        out.push_back(std::make_unique<nccl_communicator>(
            comms[r], devices[r],
            [group, r](const void* send, void* recv, std::size_t bytes) {
              group->allgather(static_cast<int>(r), send, recv, bytes);
            },
            timeout));
    } catch (...) {
      // Those made own theirs; the failure rethrown is the one to report.
      for (std::size_t k = out.size(); k < comms.size(); ++k) (void)ncclCommAbort(comms[k]);
      throw;
    }
    return out;
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  [[nodiscard]] int device() const noexcept { return device_; }
  [[nodiscard]] ncclComm_t handle() const noexcept { return comm_; }

  void allreduce(const void* send, void* recv, std::size_t count, datatype type, reduce_op op,
                 cudaStream_t stream) override {
    LOOKBACK_NCCL_TRY(ncclAllReduce(send, recv, count, detail::nccl_type(type), detail::nccl_op(op), comm_, stream));
  }

  void allgather(const void* send, void* recv, std::size_t bytes, cudaStream_t stream) override {
    LOOKBACK_NCCL_TRY(ncclAllGather(send, recv, bytes, ncclUint8, comm_, stream));
  }

  void alltoallv(const void* send, const std::int64_t* send_counts, const std::int64_t* send_offsets, void* recv,
                 const std::int64_t* recv_counts, const std::int64_t* recv_offsets, std::size_t item_bytes,
                 cudaStream_t stream) override {
    const auto* from = static_cast<const std::byte*>(send);
    auto* to = static_cast<std::byte*>(recv);
    LOOKBACK_NCCL_TRY(ncclGroupStart());
    try {
      for (int j = 0; j < size_; ++j) {
        if (send_counts[j] > 0)
          LOOKBACK_NCCL_TRY(ncclSend(from + send_offsets[j] * item_bytes, send_counts[j] * item_bytes, ncclUint8, j,
                                     comm_, stream));
        if (recv_counts[j] > 0)
          LOOKBACK_NCCL_TRY(ncclRecv(to + recv_offsets[j] * item_bytes, recv_counts[j] * item_bytes, ncclUint8, j,
                                     comm_, stream));
      }
    } catch (...) {
      (void)ncclGroupEnd();  // closed, so that this thread's next NCCL call is not taken into the group
      throw;
    }
    LOOKBACK_NCCL_TRY(ncclGroupEnd());
  }

  void allgather_host(const void* send, void* recv, std::size_t bytes) override { control_(send, recv, bytes); }

  void sync_stream(cudaStream_t stream) override {
    const auto deadline = std::chrono::steady_clock::now() + timeout_;
    for (;;) {
      const cudaError_t state = cudaStreamQuery(stream);
      if (state == cudaSuccess) return;
      if (state != cudaErrorNotReady) LOOKBACK_CUDA_TRY(state);
      ncclResult_t async = ncclSuccess;
      LOOKBACK_NCCL_TRY(ncclCommGetAsyncError(comm_, &async));
      if (async != ncclSuccess && async != ncclInProgress) {
        abort();
        throw std::runtime_error(std::string("NCCL failed while waiting: ") + ncclGetErrorString(async));
      }
      if (std::chrono::steady_clock::now() > deadline) {
        abort();
        throw std::runtime_error("timed out after " + std::to_string(timeout_.count() / 1000) +
                                 " s waiting for the other ranks' collectives; the communicator is aborted");
      }
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }

  void abort() noexcept override {
    if (!aborted_) (void)ncclCommAbort(comm_);  // nothing to do if even the abort fails
    aborted_ = true;
  }

 private:
  ncclComm_t comm_;
  int device_;
  host_allgather control_;
  std::chrono::milliseconds timeout_;
  int rank_ = 0;
  int size_ = 1;
  bool aborted_ = false;
};

/// This rank's NCCL communicator among `control`'s ranks, on `device` (which this call makes current),
/// its host-side exchanges through `host` (which reaches the same ranks as `control`): rank 0's unique
/// id, shared through `control`, then the initialisation. Each step is agreed first (guarded), so that
/// a rank failing one stops every rank at that agreement, never leaving the others in a collective it
/// does not join.
inline std::unique_ptr<nccl_communicator> nccl_rank_over(communicator& control, int device,
                                                         nccl_communicator::host_allgather host,
                                                         std::chrono::milliseconds timeout = default_timeout()) {
  ncclUniqueId id{};
  guarded(control, [&] {
    if (control.rank() == 0) detail::nccl_try(ncclGetUniqueId(&id), "ncclGetUniqueId");
    LOOKBACK_CUDA_TRY(cudaSetDevice(device));
  });
  const std::vector<ncclUniqueId> ids = allgather_host(control, id);
  ncclComm_t nccl = nullptr;
  try {
    guarded(control, [&] {
      detail::nccl_try(ncclCommInitRank(&nccl, control.size(), ids[0], control.rank()), "ncclCommInitRank");
    });
  } catch (...) {
    if (nccl != nullptr) (void)ncclCommAbort(nccl);  // made here, failed on another rank
    throw;
  }
  try {
    return std::make_unique<nccl_communicator>(nccl, device, std::move(host), timeout);
  } catch (...) {
    (void)ncclCommAbort(nccl);  // the failure rethrown is the one to report
    throw;
  }
}

}  // namespace lookback::dist
