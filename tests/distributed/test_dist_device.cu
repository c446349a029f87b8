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
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
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
    if (stream_ != nullptr) EXPECT_EQ(cudaStreamDestroy(stream_), cudaSuccess);
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

/// Large enough that a part's merge runs beside the next part's exchange on two streams: a missing
/// wait between them shows as wrong keys.
TEST_F(nccl_every_gpu, a_sort_in_parts_overlapping_exchange_and_merge_is_the_sequential_sort) {
  const std::int64_t n = (std::int64_t{1} << 22) + 12345;
  if (!size_runs(n)) GTEST_SKIP() << "LOOKBACK_TEST_MAX_N caps the sizes below " << n;
  const std::uint64_t seed = test::run_seed();
  on_every_gpu([&](auto& env) {
    check_sort<rank_env<device_backend>, std::uint32_t, std::uint32_t>(env, n, layout::uneven, spread::uniform,
                                                                     sort_options{false, 0, -1, 3}, seed);
    check_sort<rank_env<device_backend>, std::uint64_t, std::uint64_t>(env, n, layout::balanced, spread::skewed,
                                                                     sort_options{true, 0, -1, 2}, seed + 1);
  });
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

/// The sort's merge on the device equals the CPU backend's, bit for bit, on runs of every length
/// around the merge tile (either run empty, one item, a tile and one), with ties across the two runs
/// (skewed and all-equal keys, values their positions so the order of ties shows), descending and on a
/// bit range.
template <class Key, class Value>
void check_merge(device_backend& backend, cudaStream_t stream, std::int64_t na, std::int64_t nb, spread s,
                 sort_options o, std::uint64_t seed) {
  const int end = o.end_bit < 0 ? 8 * static_cast<int>(sizeof(Key)) : o.end_bit;
  const std::vector<Key> raw = make_values<Key>(na + nb, seed, s);
  std::vector<Value> raw_values(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) raw_values[i] = static_cast<Value>(i);
  std::vector<Key> runs(raw.size()), want(raw.size());
  std::vector<Value> run_values(raw.size()), want_values(raw.size());
  host_backend host;
  const auto both = [&](auto descending) {
    constexpr bool d = decltype(descending)::value;
    host.sort<d>(raw.data(), runs.data(), raw_values.data(), run_values.data(), na, o.begin_bit, end);
    host.sort<d>(raw.data() + na, runs.data() + na, raw_values.data() + na, run_values.data() + na, nb, o.begin_bit, end);
    host.merge<d>(runs.data(), run_values.data(), na, runs.data() + na, run_values.data() + na, nb, want.data(),
                  want_values.data(), o.begin_bit, end);
    const auto d_runs = to_device(runs, stream);
    const auto d_run_values = to_device(run_values, stream);
    for (const int poison_with : test::poisons_for(std::min(sizeof(Key), sizeof(Value)))) {
      std::vector<Key> poison(raw.size());
      std::vector<Value> poison_values(raw.size());
      std::memset(poison.data(), poison_with, poison.size() * sizeof(Key));
      std::memset(poison_values.data(), poison_with, poison_values.size() * sizeof(Value));
      auto d_out = to_device(poison, stream);
      auto d_out_values = to_device(poison_values, stream);
      backend.merge<d>(d_runs.data(), d_run_values.data(), na, d_runs.data() + na, d_run_values.data() + na, nb,
                       d_out.data(), d_out_values.data(), o.begin_bit, end);
      const std::string what = "na " + std::to_string(na) + " nb " + std::to_string(nb) + (d ? " descending" : "") +
                               " poison " + std::to_string(poison_with);
      expect_same_bits(to_host(d_out), want.data(), na + nb, "merged keys " + what);
      expect_same_bits(to_host(d_out_values), want_values.data(), na + nb, "merged values " + what);
      // Keys alone take the other instantiation.
      auto d_keys_only = to_device(poison, stream);
      backend.merge<d>(d_runs.data(), static_cast<const no_values*>(nullptr), na, d_runs.data() + na,
                       static_cast<const no_values*>(nullptr), nb, d_keys_only.data(), static_cast<no_values*>(nullptr),
                       o.begin_bit, end);
      expect_same_bits(to_host(d_keys_only), want.data(), na + nb, "merged keys alone " + what);
    }
  };
  if (o.descending) both(std::true_type{});
  else both(std::false_type{});
}

TEST_F(device_ranks, merge_equals_the_cpu_backends) {
  const std::uint64_t seed = test::run_seed();
  constexpr std::int64_t tile4 = device::merge_policy<4, 4>::tile_items, tile8 = device::merge_policy<8, 8>::tile_items;
  const std::vector<std::pair<std::int64_t, std::int64_t>> lengths = {
      {0, 0}, {0, 5}, {5, 0}, {1, 1}, {31, 33}, {tile4 - 1, tile4 + 1}, {tile4, tile4}, {tile8 + 1, 3 * tile8 - 1},
      {100003, 65537}, {7, 200003}};
  std::uint64_t salt = 0;
  for (const auto& [na, nb] : lengths)
    for (spread s : {spread::uniform, spread::skewed, spread::all_equal}) {
      check_merge<std::uint32_t, std::uint32_t>(*backend_, stream_, na, nb, s, sort_options{}, seed + salt++);
      check_merge<float, std::uint32_t>(*backend_, stream_, na, nb, s, sort_options{true, 0, -1}, seed + salt++);
      check_merge<std::int64_t, std::uint64_t>(*backend_, stream_, na, nb, s, sort_options{false, 5, 40}, seed + salt++);
      check_merge<std::uint8_t, std::uint64_t>(*backend_, stream_, na, nb, s, sort_options{true, 1, 7}, seed + salt++);
    }
}

}  // namespace
}  // namespace lookback::dist::testing
