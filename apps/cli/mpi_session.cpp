#include "cli/mpi_session.hpp"

#include "cli/cli_error.hpp"
#include "cli/exit_codes.hpp"

#include <cstdlib>
#include <iostream>
#include <memory>

#if defined(LOOKBACK_HAVE_MPI)
#include <lookback/distributed/mpi_communicator.hpp>
#endif

namespace lookback::cli {
namespace {

int env_int(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return -1;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  return end != text && *end == '\0' && value > 0 ? static_cast<int>(value) : -1;
}

struct session_state {
  mpi_rank_info info;
#if defined(LOOKBACK_HAVE_MPI)
  std::unique_ptr<dist::mpi_communicator> control;
#endif
};

session_state* state = nullptr;

}  // namespace

int mpi_launch_size() {
  // Open MPI's mpirun, then the PMI variables of MPICH's Hydra and of Slurm's srun.
  for (const char* size : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
    if (const int n = env_int(size); n > 0) return n;
  for (const char* rank : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
    if (std::getenv(rank) != nullptr) return -1;
  return 0;
}

#if defined(LOOKBACK_HAVE_MPI)

void begin_mpi_session() {
  int provided = 0;
  LOOKBACK_MPI_TRY(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided));
  // Errors come back as codes (reported in one line) rather than aborting the job; the communicators
  // duplicated from the world inherit this.
  LOOKBACK_MPI_TRY(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  auto s = std::make_unique<session_state>();
  s->control = std::make_unique<dist::mpi_communicator>(MPI_COMM_WORLD);
  s->info.rank = s->control->rank();
  s->info.size = s->control->size();
  MPI_Comm local = MPI_COMM_NULL;
  LOOKBACK_MPI_TRY(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, s->info.rank, MPI_INFO_NULL, &local));
  LOOKBACK_MPI_TRY(MPI_Comm_rank(local, &s->info.local_rank));
  LOOKBACK_MPI_TRY(MPI_Comm_free(&local));
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  LOOKBACK_MPI_TRY(MPI_Get_processor_name(host, &length));
  s->info.host.assign(host, static_cast<std::size_t>(length));
  state = s.release();
}

dist::communicator& session_control() { return *state->control; }

int end_mpi_session(int code, bool clean) {
  if (!clean) {
    std::cout.flush();
    std::cerr.flush();
    std::_Exit(code);
  }
  state->control.reset();
  MPI_Finalize();
  delete state;
  state = nullptr;
  return code;
}

#else

void begin_mpi_session() {
  throw cli_error(exit_code::unavailable, "--distributed: this lookback was built without MPI (install libopenmpi-dev and rebuild)");
}

dist::communicator& session_control() {
  throw cli_error(exit_code::software, "no MPI session");
}

int end_mpi_session(int code, bool) { return code; }

#endif

const mpi_rank_info* mpi_session() { return state != nullptr ? &state->info : nullptr; }

session_report settle_in_session(const failure& f) {
  session_report report{f, true, true};
  if (!f.agreed) {
    try {
      dist::agree(session_control(), f.message, f.exit_code);
    } catch (const dist::dist_error& e) {
      report.f = classify(std::current_exception());
    } catch (...) {
      report.joined = false;  // the others were not at an agreement: the launcher must end them
      return report;
    }
  }
  report.print = mpi_session()->rank == 0;
  return report;
}

}  // namespace lookback::cli
