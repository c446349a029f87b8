#pragma once
// One process per GPU, launched by MPI: NCCL's unique id from rank 0 and the host-side exchanges
// through MPI, the control plane (nccl_rank_over, nccl_communicator.hpp).
#include <lookback/distributed/mpi_communicator.hpp>
#include <lookback/distributed/nccl_communicator.hpp>

#include <memory>

namespace lookback::dist {

/// This process's rank of `comm` on `device` (which this call makes current).
inline std::unique_ptr<nccl_communicator> nccl_over_mpi(MPI_Comm comm, int device,
                                                        std::chrono::milliseconds timeout = default_timeout()) {
  auto control = std::make_shared<mpi_communicator>(comm);
  return nccl_rank_over(
      *control, device,
      [control](const void* send, void* recv, std::size_t bytes) { control->allgather_host(send, recv, bytes); }, timeout);
}

}  // namespace lookback::dist
