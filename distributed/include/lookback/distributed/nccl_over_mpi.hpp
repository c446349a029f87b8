#pragma once
// One process per GPU, launched by MPI: NCCL's unique id from rank 0 by MPI_Bcast, and MPI as the
// control plane for the host-side exchanges.
#include <lookback/distributed/mpi_communicator.hpp>
#include <lookback/distributed/nccl_communicator.hpp>

#include <memory>

namespace lookback::dist {

/// This process's rank of `comm` on `device` (which this call makes current).
inline std::unique_ptr<nccl_communicator> nccl_over_mpi(MPI_Comm comm, int device,
                                                        std::chrono::milliseconds timeout = default_timeout()) {
  auto control = std::make_shared<mpi_communicator>(comm);
  ncclUniqueId id{};
  if (control->rank() == 0) detail::nccl_try(ncclGetUniqueId(&id), "ncclGetUniqueId");
  LOOKBACK_MPI_TRY(MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, comm));
  LOOKBACK_CUDA_TRY(cudaSetDevice(device));
  ncclComm_t nccl = nullptr;
  detail::nccl_try(ncclCommInitRank(&nccl, control->size(), id, control->rank()), "ncclCommInitRank");
  return std::make_unique<nccl_communicator>(
      nccl, device, [control](const void* send, void* recv, std::size_t bytes) { control->allgather_host(send, recv, bytes); },
      timeout);
}

}  // namespace lookback::dist
