#pragma once
// This process as one rank of an MPI job (`mpirun -np P lookback <command> ... --distributed`). main
// begins the session before the command parses its options, so that a rank failing anywhere, even in
// its options, joins the other ranks' next agreement instead of leaving them waiting in it; and main
// ends it, so that every rank leaves through MPI_Finalize with the agreed exit code.
#include "cli/failure.hpp"

#include <lookback/distributed/communicator.hpp>

#include <optional>
#include <string>

namespace lookback::cli {

/// The number of ranks when an MPI launcher (mpirun, mpiexec, srun with PMI) started this process; 0
/// when it did not; -1 when it did but the size is not in the environment.
int mpi_launch_size();

/// Starts MPI and the session's control communicator; throws cli_error when the build has no MPI.
void begin_mpi_session();

struct mpi_rank_info {
  int rank = 0;
  int size = 1;
  int local_rank = 0;   // among the ranks on this host
  std::string host;     // this rank's host name
};

/// Null outside a session.
const mpi_rank_info* mpi_session();

/// The host-side exchanges of the session's ranks (MPI_COMM_WORLD's duplicate): agreements, the
/// options' fingerprint, the temporary output's name. Valid inside a session only.
dist::communicator& session_control();

/// What main reports for a failure in a session. A failure that is this rank's alone (not f.agreed)
/// joins the other ranks' next agreement first, so that they stop too; an agreed one is printed by
/// rank 0 alone (print false elsewhere), since every rank holds the same line. `joined` is false when
/// the agreement itself failed: the process must then end without MPI_Finalize (end_mpi_session).
struct session_report {
  failure f;
  bool print = true;
  bool joined = true;
};
session_report settle_in_session(const failure& f);

/// Ends the session with `code`: MPI_Finalize when every rank got this far together (`clean`), else
/// std::_Exit, which the launcher sees as a lost rank and answers by ending the job.
int end_mpi_session(int code, bool clean);

}  // namespace lookback::cli
