// NCCL 2.28's copy-engine all-to-all beside its kernels, alone and under a concurrent local sort: what
// it would take for the distributed sort's exchange to run under its sort passes (docs/distributed.md).
// Communicators asking for no CTAs (NCCL_CTA_POLICY_ZERO) and buffers from ncclMemAlloc registered as
// symmetric windows are what NCCL 2.28 asks before it moves an ncclAlltoAll over NVLink with the copy
// engines, leaving the SMs to the sort (on two H100s with 2.28.3 its log did not say it did:
// bench/results/h100x2-copy-engine-exchange.md). Rows, on the first `gpus` GPUs of this process, each with its own communicators:
//   dist_ce_alltoall / dist_sm_alltoall: every GPU sends total / gpus / gpus 4-byte items to each GPU;
//   dist_ce_sort / dist_sm_sort / dist_sort_alone: every GPU sorts total / gpus uint32 keys while the
//   same exchange runs on a second stream (or without it).
// Wall-clock from the first launch to every stream done, medians of repetitions after a warm-up run.
#include "dist_bench_support.cuh"

#include <lookback/algorithms/radix_sort.cuh>
#include <lookback/distributed/nccl_communicator.hpp>
#include <lookback/primitives/error.cuh>

#include <benchmark/benchmark.h>
#include <nccl.h>

#include <chrono>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

namespace lookback::bench {
namespace {

using dist::detail::nccl_try;
using register_fn = ncclResult_t (*)(ncclComm_t, void*, size_t, ncclWindow_t*, int);
using deregister_fn = ncclResult_t (*)(ncclComm_t, ncclWindow_t);

/// The first `gpus` GPUs as one communicator's ranks, driven from this thread, with the exchange's
/// buffers registered as symmetric windows and the sort's buffers beside them.
class exchange_group {
 public:
  exchange_group(int gpus, bool copy_engines, std::int64_t per_peer, std::int64_t sort_keys)
      : gpus_(gpus), per_peer_(per_peer), sort_keys_(sort_keys), ranks_(static_cast<std::size_t>(gpus)) {
    try {
      set_up(copy_engines);
    } catch (...) {
      release();
      throw;
    }
  }
  exchange_group(const exchange_group&) = delete;
  exchange_group& operator=(const exchange_group&) = delete;
  ~exchange_group() { release(); }

  /// Milliseconds from the first launch to every stream done: the sort on each GPU's work stream (where
  /// sort_keys > 0) and, with `exchange`, the all-to-all on its exchange stream at the same time.
  double time_ms(bool exchange);

  std::size_t exchange_bytes() const {
    return static_cast<std::size_t>(per_peer_) * static_cast<std::size_t>(gpus_) * sizeof(std::uint32_t);
  }

 private:
  void set_up(bool copy_engines) {
    const auto window_register = nccl_symbol<register_fn>("ncclCommWindowRegister");
    if (window_register == nullptr || nccl_symbol<alltoall_fn>("ncclAlltoAll") == nullptr)
      throw std::runtime_error("this NCCL has no ncclAlltoAll or ncclCommWindowRegister (2.28 and later)");
    ncclUniqueId id;
    nccl_try(ncclGetUniqueId(&id), "ncclGetUniqueId");
    const int gpus = gpus_;
    // This process drives every rank, so a throw inside a group leaves it open: closing it would start
    // the ranks already added, which would wait forever on those missing. The throw ends the bench.
    nccl_try(ncclGroupStart(), "ncclGroupStart");
    for (int r = 0; r < gpus; ++r) {
      LOOKBACK_CUDA_TRY(cudaSetDevice(r));
      ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
      config.CTAPolicy = copy_engines ? NCCL_CTA_POLICY_ZERO : NCCL_CTA_POLICY_DEFAULT;
      nccl_try(ncclCommInitRankConfig(&rank(r).comm, gpus, id, r, &config), "ncclCommInitRankConfig");
    }
    nccl_try(ncclGroupEnd(), "ncclGroupEnd");
    const std::size_t bytes = exchange_bytes();
    for (int r = 0; r < gpus; ++r) {
      auto& k = rank(r);
      LOOKBACK_CUDA_TRY(cudaSetDevice(r));
      LOOKBACK_CUDA_TRY(cudaStreamCreateWithFlags(&k.exchange, cudaStreamNonBlocking));
      LOOKBACK_CUDA_TRY(cudaStreamCreateWithFlags(&k.work, cudaStreamNonBlocking));
      nccl_try(ncclMemAlloc(&k.send, bytes), "ncclMemAlloc", k.comm);
      nccl_try(ncclMemAlloc(&k.recv, bytes), "ncclMemAlloc", k.comm);
      LOOKBACK_CUDA_TRY(cudaMemset(k.send, 0x5a, bytes));
      if (sort_keys_ > 0) {
        const auto n = static_cast<std::size_t>(sort_keys_);
        LOOKBACK_CUDA_TRY(cudaMalloc(&k.keys_in, n * sizeof(std::uint32_t)));
        LOOKBACK_CUDA_TRY(cudaMalloc(&k.keys_out, n * sizeof(std::uint32_t)));
        fill_random_slice(k.keys_in, sort_keys_, r * sort_keys_, 8, k.work);
        radix_sort_keys(nullptr, k.temp_bytes, k.keys_in, k.keys_out, sort_keys_, 0, 32, k.work);
        LOOKBACK_CUDA_TRY(cudaMalloc(&k.temp, k.temp_bytes));
      }
    }
    nccl_try(ncclGroupStart(), "ncclGroupStart");
    for (int r = 0; r < gpus; ++r) {
      auto& k = rank(r);
      LOOKBACK_CUDA_TRY(cudaSetDevice(r));
      nccl_try(window_register(k.comm, k.send, bytes, &k.send_window, NCCL_WIN_COLL_SYMMETRIC), "ncclCommWindowRegister",
               k.comm);
      nccl_try(window_register(k.comm, k.recv, bytes, &k.recv_window, NCCL_WIN_COLL_SYMMETRIC), "ncclCommWindowRegister",
               k.comm);
    }
    nccl_try(ncclGroupEnd(), "ncclGroupEnd");
    for (int r = 0; r < gpus; ++r) {
      LOOKBACK_CUDA_TRY(cudaSetDevice(r));
      LOOKBACK_CUDA_TRY(cudaDeviceSynchronize());
    }
  }

  /// Whatever set_up made, also after it failed partway.
  void release() noexcept {
    const auto window_deregister = nccl_symbol<deregister_fn>("ncclCommWindowDeregister");
    for (int r = 0; r < gpus_; ++r) {
      auto& k = rank(r);
      (void)cudaSetDevice(r);
      (void)cudaDeviceSynchronize();
      if (window_deregister != nullptr && k.send_window != nullptr) (void)window_deregister(k.comm, k.send_window);
      if (window_deregister != nullptr && k.recv_window != nullptr) (void)window_deregister(k.comm, k.recv_window);
      if (k.send != nullptr) (void)ncclMemFree(k.send);
      if (k.recv != nullptr) (void)ncclMemFree(k.recv);
      (void)cudaFree(k.keys_in);
      (void)cudaFree(k.keys_out);
      (void)cudaFree(k.temp);
      if (k.comm != nullptr) (void)ncclCommDestroy(k.comm);
      if (k.exchange != nullptr) (void)cudaStreamDestroy(k.exchange);
      if (k.work != nullptr) (void)cudaStreamDestroy(k.work);
    }
  }

  struct rank_state;
  rank_state& rank(int r) { return ranks_[static_cast<std::size_t>(r)]; }

  struct rank_state {
    ncclComm_t comm = nullptr;
    cudaStream_t exchange = nullptr, work = nullptr;
    void* send = nullptr;
    void* recv = nullptr;
    ncclWindow_t send_window = nullptr, recv_window = nullptr;
    std::uint32_t* keys_in = nullptr;
    std::uint32_t* keys_out = nullptr;
    void* temp = nullptr;
    std::size_t temp_bytes = 0;
  };

  int gpus_;
  std::int64_t per_peer_;
  std::int64_t sort_keys_;
  std::vector<rank_state> ranks_;
};

double exchange_group::time_ms(bool exchange) {
  const auto all_to_all = nccl_symbol<alltoall_fn>("ncclAlltoAll");
  const auto begin = std::chrono::steady_clock::now();
  for (int r = 0; r < gpus_; ++r) {
    auto& k = rank(r);
    LOOKBACK_CUDA_TRY(cudaSetDevice(r));
    if (sort_keys_ > 0) radix_sort_keys(k.temp, k.temp_bytes, k.keys_in, k.keys_out, sort_keys_, 0, 32, k.work);
  }
  if (exchange) {
    nccl_try(ncclGroupStart(), "ncclGroupStart");
    for (int r = 0; r < gpus_; ++r) {
      auto& k = rank(r);
      LOOKBACK_CUDA_TRY(cudaSetDevice(r));
      nccl_try(all_to_all(k.send, k.recv, static_cast<size_t>(per_peer_), ncclUint32, k.comm, k.exchange), "ncclAlltoAll",
               k.comm);
    }
    nccl_try(ncclGroupEnd(), "ncclGroupEnd");
  }
  for (int r = 0; r < gpus_; ++r) {
    LOOKBACK_CUDA_TRY(cudaSetDevice(r));
    LOOKBACK_CUDA_TRY(cudaStreamSynchronize(rank(r).work));
    LOOKBACK_CUDA_TRY(cudaStreamSynchronize(rank(r).exchange));
  }
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count();
}

/// One row: a group made for it (and destroyed after, so the next row's buffers fit), a warm-up call,
/// then the timed calls.
void exchange_row(benchmark::State& state, int gpus, std::int64_t total, bool copy_engines, bool sort, bool exchange) {
  try {
    exchange_group group(gpus, copy_engines, total / gpus / gpus, sort ? total / gpus : 0);
    group.time_ms(exchange);
    for (auto _ : state) state.SetIterationTime(group.time_ms(exchange) / 1e3);
    // Bytes that leave each GPU, over all GPUs (as dist_alltoall_* count them).
    if (exchange)
      state.SetBytesProcessed(static_cast<std::int64_t>(group.exchange_bytes() / gpus * (gpus - 1) * gpus) *
                              state.iterations());
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

}  // namespace

void register_copy_engine_rows(int gpus, std::int64_t total) {
  if (gpus < 2) return;
  struct kind {
    const char* name;
    bool copy_engines, sort, exchange;
  };
  for (const kind k : {kind{"dist_ce_alltoall", true, false, true}, kind{"dist_sm_alltoall", false, false, true},
                       kind{"dist_sort_alone", true, true, false}, kind{"dist_ce_sort", true, true, true},
                       kind{"dist_sm_sort", false, true, true}}) {
    const std::string name = std::string(k.name) + "/uint32/gpus:" + std::to_string(gpus) + "/" + std::to_string(total);
    benchmark::RegisterBenchmark(name.c_str(),
                                 [=](benchmark::State& s) { exchange_row(s, gpus, total, k.copy_engines, k.sort, k.exchange); })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond)
        ->Repetitions(5)
        ->ReportAggregatesOnly(true)
        ->Iterations(3);
  }
}

}  // namespace lookback::bench
