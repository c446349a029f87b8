// lookback::dist on the GPU backend: NCCL with one rank per process, and, under mpirun, ranks on a GPU
// each where the machine has enough, else sharing them (NCCL refuses two ranks on one GPU, so the MPI
// communicator's staged device buffers carry their collectives), which runs the device backend's
// multi-rank paths (splitters, exchanges). Every function against the sequential result.
#include "distributed/dist_cases.hpp"
#include "distributed/typed_cases.hpp"
#include "support/gpu_test.hpp"

#include <lookback/distributed/device_backend.cuh>
#include <lookback/distributed/host_backend.hpp>
#include <lookback/distributed/mpi_communicator.hpp>
#include <lookback/distributed/nccl_communicator.hpp>
#include <lookback/distributed/rank_threads.hpp>
#include <lookback/primitives/stream.cuh>

#include <algorithm>
#include <exception>
#include <memory>
#include <vector>

namespace lookback::dist::testing {
namespace {

class device_ranks : public test::gpu_test {
 protected:
  void SetUp() override {
    test::gpu_test::SetUp();
    if (IsSkipped()) return;
    // One GPU a rank where the machine has enough (mpirun -np 2 on two GPUs), else ranks share them.
    int rank = 0;
    int gpus = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    LOOKBACK_CUDA_TRY(cudaGetDeviceCount(&gpus));
    device_ = rank % gpus;
    LOOKBACK_CUDA_TRY(cudaSetDevice(device_));
    LOOKBACK_CUDA_TRY(cudaStreamCreate(&stream_));
    backend_ = std::make_unique<device_backend>(stream_);
  }
  void TearDown() override {
    env_.reset();
    comm_.reset();
    backend_.reset();
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  rank_env<device_backend>& env(std::unique_ptr<communicator> comm) {
    comm_ = std::move(comm);
    env_ = std::make_unique<rank_env<device_backend>>(rank_env<device_backend>{*backend_, *comm_});
    return *env_;
  }

  int device_ = 0;
  cudaStream_t stream_ = nullptr;
  std::unique_ptr<device_backend> backend_;
  std::unique_ptr<communicator> comm_;
  std::unique_ptr<rank_env<device_backend>> env_;
};

/// One NCCL rank on the process's GPU, as `lookback ... --gpus 1` runs.
class nccl_one_rank : public device_ranks {
 protected:
  rank_env<device_backend>& env() {
    auto comms = nccl_communicator::for_devices({device_});
    return device_ranks::env(std::move(comms.front()));
  }
};

/// Every mpirun rank on its GPU (rank modulo the GPUs), its collectives staged through host memory by
/// MPI.
class device_ranks_over_mpi : public device_ranks {
 protected:
  rank_env<device_backend>& env() {
    return device_ranks::env(std::make_unique<mpi_communicator>(MPI_COMM_WORLD, mpi_communicator::memory::device));
  }
};

/// One process driving every GPU of the machine, a rank each on its own host thread (`lookback ...
/// --gpus N`): NCCL between the GPUs, the ranks' host-side exchanges through a thread_group.
class nccl_every_gpu : public test::gpu_test {
 protected:
  void SetUp() override {
    test::gpu_test::SetUp();
    if (IsSkipped()) return;
    int processes = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &processes);
    if (processes > 1) GTEST_SKIP() << "one process drives every GPU here; under mpirun the MPI cases run";
    LOOKBACK_CUDA_TRY(cudaGetDeviceCount(&gpus_));
    if (gpus_ < 2) GTEST_SKIP() << "needs two GPUs in one process; this machine has " << gpus_;
  }

  /// Runs cases(env) on every GPU's rank at once, a thread each, as `--gpus N` does; a rank's failure
  /// is agreed by every rank (guarded), so none waits for it.
  template <class Cases>
  void on_every_gpu(Cases cases) {
    std::vector<int> devices(static_cast<std::size_t>(gpus_));
    for (int g = 0; g < gpus_; ++g) devices[static_cast<std::size_t>(g)] = g;
    auto comms = nccl_communicator::for_devices(devices);
    try {
      run_rank_threads(gpus_, [&](int r) {
        communicator& comm = *comms[static_cast<std::size_t>(r)];
        guarded(comm, [&] {
          LOOKBACK_CUDA_TRY(cudaSetDevice(devices[static_cast<std::size_t>(r)]));
          const cuda_stream stream;
          device_backend backend(stream);
          rank_env<device_backend> env{backend, comm};
          cases(env);
        });
      });
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what();
    }
  }

  int gpus_ = 0;
};

TEST_F(nccl_one_rank, reduce_and_scans_equal_the_sequential_result) { run_reduce_and_scan_cases(env()); }
TEST_F(nccl_one_rank, histograms_equal_the_sequential_counts) { run_histogram_cases(env()); }
TEST_F(nccl_one_rank, compaction_keeps_the_sequential_items) { run_select_cases(env()); }
// The device sort itself is tested on every key type in test_radix_sort.cu, and the distributed logic
// on every key type by the CPU backend; here three key widths keep this file's build time down.
TEST_F(nccl_one_rank, sort_is_the_sequential_stable_sort) {
  run_sort_cases<rank_env<device_backend>, std::uint32_t, float, std::uint64_t>(env());
}

TEST_F(device_ranks_over_mpi, reduce_and_scans_equal_the_sequential_result) { run_reduce_and_scan_cases(env()); }
TEST_F(device_ranks_over_mpi, histograms_equal_the_sequential_counts_on_every_rank) { run_histogram_cases(env()); }
TEST_F(device_ranks_over_mpi, compaction_places_kept_items_at_their_global_offset) { run_select_cases(env()); }
TEST_F(device_ranks_over_mpi, sort_is_the_sequential_stable_sort_and_exactly_balanced) {
  run_sort_cases<rank_env<device_backend>, std::uint32_t, float, std::uint64_t>(env());
}

TEST_F(nccl_one_rank, the_commands_typed_runs_equal_the_cpu_references) {
  typed::dist_rank rank{env().comm, true, stream_};
  check_typed_runs(rank);
}
TEST_F(device_ranks_over_mpi, the_commands_typed_runs_equal_the_cpu_references) {
  typed::dist_rank rank{env().comm, true, stream_};
  check_typed_runs(rank);
}

TEST_F(nccl_every_gpu, reduce_and_scans_equal_the_sequential_result) {
  on_every_gpu([](auto& env) { run_reduce_and_scan_cases(env); });
}
TEST_F(nccl_every_gpu, histograms_equal_the_sequential_counts_on_every_gpu) {
  on_every_gpu([](auto& env) { run_histogram_cases(env); });
}
TEST_F(nccl_every_gpu, compaction_places_kept_items_at_their_global_offset) {
  on_every_gpu([](auto& env) { run_select_cases(env); });
}
TEST_F(nccl_every_gpu, sort_is_the_sequential_stable_sort_and_exactly_balanced) {
  on_every_gpu([](auto& env) { run_sort_cases<rank_env<device_backend>, std::uint32_t, float, std::uint64_t>(env); });
}

/// The splitter search's count on the device equals the CPU backend's, probe for probe.
TEST_F(device_ranks, count_at_most_equals_the_cpu_backends) {
  std::vector<std::int32_t> keys = make_values<std::int32_t>(10007, test::run_seed(), spread::skewed);
  std::sort(keys.begin(), keys.end());
  std::vector<std::uint64_t> probes;
  for (std::uint64_t q = 0; q < 4096; ++q) probes.push_back((q * 2654435761u) % 4096 + (std::uint64_t{1} << 31) - 2048);
  probes.push_back(0);
  probes.push_back(~std::uint64_t{0});
  const auto m = static_cast<std::int64_t>(probes.size());
  std::vector<std::int64_t> want(probes.size()), got(probes.size(), -1);
  host_backend{}.count_at_most<false>(keys.data(), 10007, 0, 32, probes.data(), m, want.data());
  const auto d_keys = to_device(keys, stream_);
  const auto d_probes = to_device(probes, stream_);
  auto d_counts = to_device(got, stream_);
  backend_->count_at_most<false>(d_keys.data(), 10007, 0, 32, d_probes.data(), m, d_counts.data());
  got = to_host(d_counts);
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace lookback::dist::testing
