#pragma once
// How an array command runs across ranks. --gpus N: this process splits the input across N local
// GPUs, a host thread per GPU, NCCL between them. --distributed: one process per rank under an MPI
// launcher, each on the GPU of its local rank (NCCL bootstrapped over MPI) or on the CPU (MPI). Every
// step a rank takes alone ends in an agreement, so that a failure on any rank stops every rank at the
// same point with the same one-line error, naming the rank.
#include "cli/backend.hpp"
#include "typed/dist_ops.hpp"

#include <lookback/distributed/communicator.hpp>

#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace lookback::cli {

/// --gpus and --distributed as given ("" and false when not).
struct launch_options {
  std::string gpus;
  bool distributed = false;
  [[nodiscard]] bool requested() const { return !gpus.empty() || distributed; }
};

/// What one rank of a launch computes with.
struct rank_context {
  int rank = 0;
  int ranks = 1;
  int in_process = 1;  // ranks sharing this process's host memory (the threads of --gpus)
  typed::dist_rank r;
};

/// Runs one rank's local step, then agrees with the other ranks on `comm`: a failure on any rank
/// throws the same dist_error on every rank, carrying the failing rank's exit code.
void agreed(dist::communicator& comm, const std::function<void()>& step);

class launch {
 public:
  /// Checks the options against the backend and the machine, before any file is opened: --gpus with
  /// --distributed or with the CPU backend, more GPUs than present, --distributed outside an MPI
  /// launch, a build without NCCL or MPI. Inactive (the single-process path) without either option.
  launch(const launch_options& options, backend b);
  ~launch();
  launch(const launch&) = delete;
  launch& operator=(const launch&) = delete;

  [[nodiscard]] bool active() const { return mode_ != mode::single; }
  [[nodiscard]] int ranks() const { return ranks_; }
  /// This process prints: rank 0's (the only process of --gpus).
  [[nodiscard]] bool root() const { return rank_ == 0; }
  [[nodiscard]] backend where() const { return backend_; }

  /// Once the command has opened its inputs: every rank checks that all of them run the same
  /// `command` with the same `words` (less the memory limits, which are each host's own) on the same
  /// inputs (`inputs`: their dtypes and shapes), then this process's communicators are set up.
  void ready(const std::string& command, const std::vector<std::string>& words, const std::string& inputs);

  /// step on each of this process's ranks (a thread per GPU with --gpus, its GPU current), agreed.
  void run(const std::function<void(const rank_context&)>& step);
  /// step on the root process alone, then agreed by every process.
  void on_root(const std::function<void()>& step);
  /// step on every process but the root, then agreed.
  void on_others(const std::function<void()>& step);
  /// The root's `text` on every process (the temporary output's name).
  [[nodiscard]] std::string from_root(const std::string& text);

  /// "3 ranks over MPI on the CPU", "2 GPUs over NCCL 2.28.3", "4 ranks over NCCL 2.28.3 (MPI launch)"
  [[nodiscard]] std::string describe() const;

 private:
  enum class mode { single, local_gpus, mpi };
  struct local_rank;

  mode mode_ = mode::single;
  backend backend_ = backend::cpu;
  int ranks_ = 1;
  int rank_ = 0;
  std::vector<int> devices_;  // --gpus: rank r's GPU; --distributed on GPUs: this rank's
  std::vector<std::unique_ptr<local_rank>> locals_;
};

/// "N" or "all" as a count of GPUs; a malformed or non-positive count is a usage error.
int parse_gpu_count(const std::string& text, int present);

}  // namespace lookback::cli
