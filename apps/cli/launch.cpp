#include "cli/launch.hpp"

#include "cli/cli_error.hpp"
#include "cli/exit_codes.hpp"
#include "cli/failure.hpp"
#include "cli/mpi_session.hpp"
#include "typed/gpu_probe.hpp"

#include <lookback/distributed/rank_threads.hpp>
#include <lookback/primitives/error.cuh>

#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <string>

#if defined(LOOKBACK_HAVE_NCCL)
#include <lookback/distributed/nccl_communicator.hpp>
#endif

namespace lookback::cli {

struct launch::local_rank {
  std::unique_ptr<dist::communicator> comm;
  int device = -1;
  cudaStream_t stream = nullptr;

  ~local_rank() {
    if (stream == nullptr) return;
    // Teardown after a failure must not throw; the stream goes with the process anyway.
    if (cudaSetDevice(device) == cudaSuccess) (void)cudaStreamDestroy(stream);
  }
};

namespace {

std::string gpu_count_text(int n) { return std::to_string(n) + (n == 1 ? " GPU" : " GPUs"); }

/// Where a rank of an MPI launch runs: its host (a hash of the name), local rank, the GPUs it sees, and
/// the UUID of the one it took.
struct gpu_placement {
  std::uint64_t host;
  int local_rank;
  int present;
  unsigned char uuid[16];
};

gpu_placement gpu_placement_of(const mpi_rank_info& me, int present, const cudaUUID_t& uuid) {
  gpu_placement p{};
  p.host = std::hash<std::string>{}(me.host);
  p.local_rank = me.local_rank;
  p.present = present;
  static_assert(sizeof(uuid.bytes) == sizeof(p.uuid), "a CUDA UUID is 16 bytes");
  std::memcpy(p.uuid, uuid.bytes, sizeof(p.uuid));
  return p;
}

/// FNV-1a over the words that decide the result: each host's memory limits may differ, nothing else.
std::uint64_t fingerprint(const std::string& command, const std::vector<std::string>& words, const std::string& inputs,
                          backend b) {
  std::uint64_t h = 1469598103934665603ull;
  const auto mix = [&h](const std::string& text) {
    for (const char c : text) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    h = (h ^ 0xffu) * 1099511628211ull;  // word boundary
  };
  mix(command);
  mix(b == backend::gpu ? "gpu" : "cpu");
  mix(inputs);
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    const bool limit = w.rfind("--host-memory-limit", 0) == 0 || w.rfind("--device-memory-limit", 0) == 0;
    if (limit) {
      if (w.find('=') == std::string::npos) ++i;  // its value is the next word
      continue;
    }
    mix(w);
  }
  return h;
}

#if defined(LOOKBACK_HAVE_NCCL)
std::unique_ptr<dist::communicator> nccl_over_session(int device) {
  // The session's one control communicator carries the NCCL ranks' host exchanges too, so that a
  // rank failing outside an algorithm meets the others at the same agreements.
  return dist::nccl_rank_over(session_control(), device, [](const void* send, void* recv, std::size_t bytes) {
    session_control().allgather_host(send, recv, bytes);
  });
}
#endif

}  // namespace

int parse_gpu_count(const std::string& text, int present) {
  if (text == "all") {
    if (present == 0) throw cli_error(exit_code::unavailable, "--gpus all: this machine has no usable GPU");
    return present;
  }
  char* end = nullptr;
  errno = 0;
  const long n = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || n <= 0 || errno == ERANGE)
    throw cli_error(exit_code::usage, "--gpus: '" + text + "' is not a count of GPUs (a positive number, or all)");
  // A count past any machine is more GPUs than present (exit 69, as the caller's check says), not bad usage.
  return static_cast<int>(std::min<long>(n, std::numeric_limits<int>::max()));
}

launch::launch(const launch_options& options, backend b) : backend_(b) {
  if (!options.requested()) return;
  if (!options.gpus.empty() && options.distributed)
    throw cli_error(exit_code::usage,
                    "--gpus and --distributed are two ways to run on several GPUs: give one (--gpus for this machine's "
                    "GPUs, --distributed under mpirun)");
  if (!options.gpus.empty()) {
    if (b == backend::cpu)
      throw cli_error(exit_code::usage,
                      "--gpus runs on GPUs and does not combine with --backend cpu (CPU ranks: mpirun -np P lookback "
                      "... --distributed --backend cpu)");
#if !defined(LOOKBACK_HAVE_NCCL)
    throw cli_error(exit_code::unavailable, "--gpus: this lookback was built without NCCL");
#endif
    const int present = typed::usable_gpu_count();
    ranks_ = parse_gpu_count(options.gpus, present);
    if (ranks_ > present)
      throw cli_error(exit_code::unavailable, "--gpus " + options.gpus + ": this machine has " + gpu_count_text(present));
    mode_ = mode::local_gpus;
    for (int d = 0; d < ranks_; ++d) devices_.push_back(d);
    return;
  }
  const mpi_rank_info* session = mpi_session();
  if (session == nullptr) {
    if (mpi_launch_size() == 0)
      throw cli_error(exit_code::usage,
                      "--distributed runs one process per rank under an MPI launcher: mpirun -np P lookback <command> "
                      "... --distributed");
    throw cli_error(exit_code::usage, "--distributed must be spelt out in full");
  }
#if !defined(LOOKBACK_HAVE_NCCL)
  if (b == backend::gpu)
    throw cli_error(exit_code::unavailable,
                    "--distributed on GPUs: this lookback was built without NCCL (use --backend cpu, or rebuild with NCCL)");
#endif
  mode_ = mode::mpi;
  ranks_ = session->size;
  rank_ = session->rank;
}

launch::~launch() = default;

void agreed(dist::communicator& comm, const std::function<void()>& step) {
  failure f{0, ""};
  try {
    step();
  } catch (const dist::dist_error&) {
    throw;  // agreed already, by every rank at the same point
  } catch (...) {
    f = classify(std::current_exception());
  }
  dist::agree(comm, f.message, f.exit_code);
}

void launch::ready(const std::string& command, const std::vector<std::string>& words, const std::string& inputs) {
  if (mode_ == mode::single) return;
  if (mode_ == mode::local_gpus) {
#if defined(LOOKBACK_HAVE_NCCL)
    auto comms = dist::nccl_communicator::for_devices(devices_);
    for (int r = 0; r < ranks_; ++r) {
      auto local = std::make_unique<local_rank>();
      local->device = devices_[static_cast<std::size_t>(r)];
      LOOKBACK_CUDA_TRY(cudaSetDevice(local->device));
      LOOKBACK_CUDA_TRY(cudaStreamCreateWithFlags(&local->stream, cudaStreamNonBlocking));
      local->comm = std::move(comms[static_cast<std::size_t>(r)]);
      locals_.push_back(std::move(local));
    }
    // What runs outside the ranks' threads (the root's steps, --verify's single-GPU run) runs on the
    // first GPU, as a single-process run does, not on the last one set up here: with two GPUs,
    // --verify's copies met the second GPU current and failed (cudaErrorInvalidValue).
    LOOKBACK_CUDA_TRY(cudaSetDevice(devices_.front()));
#endif
    return;
  }
  // Every rank has opened its inputs (a rank that failed before joins this agreement from main).
  agreed(session_control(), [] {});
  // --backend auto resolves on each host alone: one without a GPU takes the CPU. Said before the
  // fingerprint, which would only find the ranks' command lines different.
  const int on_gpu = backend_ == backend::gpu ? 1 : 0;
  const std::vector<int> backends = dist::allgather_host(session_control(), on_gpu);
  agreed(session_control(), [&] {
        if (on_gpu != backends[0])
          throw cli_error(exit_code::unavailable,
                          std::string("it runs on the ") + (on_gpu != 0 ? "GPU" : "CPU (it sees no usable GPU)") +
                              " where rank 0 runs on the " + (backends[0] != 0 ? "GPU" : "CPU") +
                              ": every rank needs a GPU, or name --backend cpu");
  });
  const std::uint64_t mine = fingerprint(command, words, inputs, backend_);
  const std::vector<std::uint64_t> all = dist::allgather_host(session_control(), mine);
  agreed(session_control(), [&] {
        if (mine != all[0])
          throw cli_error(exit_code::usage,
                          "its command line or inputs differ from rank 0's (every rank must run the same command, with "
                          "the same options, on the same files)");
  });
  auto local = std::make_unique<local_rank>();
  // Each rank takes its local rank's turn among the GPUs it sees: the host's GPUs, or the one a scheduler
  // bound to it (Slurm's --gpus-per-task=1, a CUDA_VISIBLE_DEVICES of its own). NCCL takes one GPU a
  // rank, so ranks of one host that land on the same GPU (by its UUID) are refused, the later one named.
  gpu_placement placed{};
  agreed(session_control(), [&] {
        if (backend_ == backend::cpu) return;
        const mpi_rank_info& me = *mpi_session();
        const int present = typed::usable_gpu_count();
        if (present == 0)
          throw cli_error(exit_code::unavailable, "local rank " + std::to_string(me.local_rank) + " on " + me.host +
                                                      " has no GPU of its own (it sees none): use --backend cpu");
        local->device = me.local_rank % present;
        devices_ = {local->device};
        LOOKBACK_CUDA_TRY(cudaSetDevice(local->device));
        cudaDeviceProp properties{};
        LOOKBACK_CUDA_TRY(cudaGetDeviceProperties(&properties, local->device));
        placed = gpu_placement_of(me, present, properties.uuid);
        LOOKBACK_CUDA_TRY(cudaStreamCreateWithFlags(&local->stream, cudaStreamNonBlocking));
  });
  // Every rank has the same backend (the fingerprint says so), so all or none exchange placements.
  if (backend_ != backend::cpu) {
    const std::vector<gpu_placement> placements = dist::allgather_host(session_control(), placed);
    agreed(session_control(), [&] {
        for (std::size_t r = 0; r < static_cast<std::size_t>(rank_); ++r) {
          const gpu_placement& other = placements[r];
          if (other.host != placed.host || std::memcmp(other.uuid, placed.uuid, sizeof(placed.uuid)) != 0) continue;
          throw cli_error(exit_code::unavailable,
                          "local rank " + std::to_string(placed.local_rank) + " on " + mpi_session()->host +
                              " has no GPU of its own: it would share local rank " + std::to_string(other.local_rank) +
                              "'s (" + gpu_count_text(placed.present) +
                              " visible to it; NCCL takes one GPU a rank): start at most that many ranks a host, bind "
                              "one GPU to each rank, or use --backend cpu");
        }
    });
  }
  agreed(session_control(), [&] {
#if defined(LOOKBACK_HAVE_NCCL)
        if (backend_ == backend::gpu) local->comm = nccl_over_session(local->device);
#endif
  });
  locals_.push_back(std::move(local));
}

void launch::run(const std::function<void(const rank_context&)>& step) {
  if (mode_ == mode::mpi) {
    local_rank& local = *locals_.front();
    dist::communicator& comm = local.comm ? *local.comm : session_control();
    agreed(comm, [&] {
      if (local.device >= 0) LOOKBACK_CUDA_TRY(cudaSetDevice(local.device));
      step(rank_context{rank_, ranks_, 1, typed::dist_rank{comm, backend_ == backend::gpu, local.stream}});
    });
    return;
  }
  // --gpus: a thread a GPU; each rank's failure is agreed within the threads, and the first rethrown here.
  dist::run_rank_threads(static_cast<int>(locals_.size()), [&](int r) {
    local_rank& local = *locals_[static_cast<std::size_t>(r)];
    agreed(*local.comm, [&] {
      LOOKBACK_CUDA_TRY(cudaSetDevice(local.device));
      step(rank_context{r, ranks_, ranks_, typed::dist_rank{*local.comm, true, local.stream}});
    });
  });
}

void launch::on_root(const std::function<void()>& step) {
  if (mode_ != mode::mpi) return step();
  agreed(session_control(), [&] {
    if (root()) step();
  });
}

void launch::on_others(const std::function<void()>& step) {
  if (mode_ != mode::mpi) return;
  agreed(session_control(), [&] {
    if (!root()) step();
  });
}

std::string launch::from_root(const std::string& text) {
  if (mode_ != mode::mpi) return text;
  struct message {
    char text[4096];
    bool whole;
  };
  message mine{};
  std::strncpy(mine.text, text.c_str(), sizeof(mine.text) - 1);
  mine.whole = text.size() < sizeof(mine.text);
  const std::vector<message> all = dist::allgather_host(session_control(), mine);
  // Every rank refuses together: the root alone throwing would leave the others waiting on it.
  if (!all[0].whole)
    throw cli_error(exit_code::cant_create, "the root's output path is longer than the " +
                                                std::to_string(sizeof(mine.text) - 1) + " bytes the ranks share");
  return std::string(all[0].text, strnlen(all[0].text, sizeof(all[0].text)));
}

std::string launch::describe() const {
#if defined(LOOKBACK_HAVE_NCCL)
  const std::string nccl = "NCCL " + dist::nccl_version();
#else
  const std::string nccl = "NCCL";
#endif
  switch (mode_) {
    case mode::single: return "1 process";
    case mode::local_gpus: return gpu_count_text(ranks_) + " over " + nccl;
    case mode::mpi:
      return std::to_string(ranks_) + (ranks_ == 1 ? " rank" : " ranks") +
             (backend_ == backend::gpu ? " over " + nccl + ", a GPU each (MPI launch)" : " over MPI on the CPU");
  }
  return "";
}

}  // namespace lookback::cli
