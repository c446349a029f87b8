// lookback::dist from one process on 1, 2, 4 ... of this machine's GPUs, a rank a GPU (as
// `lookback ... --gpus N` runs), beside one GPU in the same run: the sort's strong scaling (2^30 keys
// over every GPU count) and weak scaling (2^29 keys a GPU), histogram and scan throughput, and the
// sort's all-to-all beside ncclAlltoAll on the same buffers. A row's time is wall-clock, from a
// barrier of every rank to the last rank's stream done: what a caller of the distributed sort waits,
// host exchanges included (CUDA events would time one GPU's stream). Medians of repetitions after a
// warm-up run; bench/dist_table.py turns the JSON into the scaling table.
#include "dist_bench_support.cuh"

#include <lookback/distributed/device_backend.cuh>
#include <lookback/distributed/histogram.hpp>
#include <lookback/distributed/nccl_communicator.hpp>
#include <lookback/distributed/rank_threads.hpp>
#include <lookback/distributed/scan.hpp>
#include <lookback/distributed/slices.hpp>
#include <lookback/distributed/sort.hpp>
#include <lookback/primitives/error.cuh>
#include <lookback/primitives/operators.cuh>

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace lookback::bench {
namespace {

using dist::device_backend;
using dist::nccl_communicator;

/// One rank of the group: its GPU, stream, communicator and backend.
struct gpu_rank {
  int device = 0;
  cudaStream_t stream = nullptr;
  std::unique_ptr<nccl_communicator> comm;
  std::unique_ptr<device_backend> backend;
};

/// The first `count` GPUs as one communicator's ranks, each driven from its own host thread.
class gpu_group {
 public:
  explicit gpu_group(int count) {
    std::vector<int> devices(static_cast<std::size_t>(count));
    for (int g = 0; g < count; ++g) devices[static_cast<std::size_t>(g)] = g;
    auto comms = nccl_communicator::for_devices(devices);
    for (int g = 0; g < count; ++g) {
      gpu_rank rank;
      rank.device = g;
      LOOKBACK_CUDA_TRY(cudaSetDevice(g));
      LOOKBACK_CUDA_TRY(cudaStreamCreateWithFlags(&rank.stream, cudaStreamNonBlocking));
      // A warm pool, as a long-running pipeline has: buffers the sort frees are kept for the next call.
      cudaMemPool_t pool = nullptr;
      LOOKBACK_CUDA_TRY(cudaDeviceGetDefaultMemPool(&pool, g));
      std::uint64_t keep = std::numeric_limits<std::uint64_t>::max();
      LOOKBACK_CUDA_TRY(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
      rank.comm = std::move(comms[static_cast<std::size_t>(g)]);
      rank.backend = std::make_unique<device_backend>(rank.stream);
      ranks_.push_back(std::move(rank));
    }
  }
  ~gpu_group() {
    // A destructor has no one to report to; a rank whose device cannot be made current keeps its stream.
    for (auto& rank : ranks_) {
      const bool current = cudaSetDevice(rank.device) == cudaSuccess;
      rank.backend.reset();
      rank.comm.reset();
      if (current) (void)cudaStreamDestroy(rank.stream);
    }
  }
  gpu_group(const gpu_group&) = delete;
  gpu_group& operator=(const gpu_group&) = delete;

  [[nodiscard]] int size() const { return static_cast<int>(ranks_.size()); }

  /// work(rank) on every rank's own thread, its GPU current; a failure on any rank is agreed by all
  /// (guarded), and rethrown.
  template <class Work>
  void run(Work work) {
    dist::run_rank_threads(size(), [&](int r) {
      gpu_rank& rank = ranks_[static_cast<std::size_t>(r)];
      dist::guarded(*rank.comm, [&] {
        LOOKBACK_CUDA_TRY(cudaSetDevice(rank.device));
        work(rank);
      });
    });
  }

  /// Milliseconds from a barrier of every rank to the last rank's step(rank) done on its stream.
  template <class Step>
  double time_ms(Step step) {
    double ms = 0;
    run([&](gpu_rank& rank) {
      barrier(rank);
      const auto start = std::chrono::steady_clock::now();
      step(rank);
      rank.comm->sync_stream(rank.stream);
      barrier(rank);
      if (rank.comm->rank() == 0)
        ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    });
    return ms;
  }

 private:
  static void barrier(gpu_rank& rank) { (void)dist::allgather_host(*rank.comm, 0); }
  std::vector<gpu_rank> ranks_;
};

/// The rank's index into per-rank arrays.
std::size_t slot(const gpu_rank& rank) { return static_cast<std::size_t>(rank.comm->rank()); }

/// Groups made once per GPU count and kept for the run (NCCL's set-up takes a second).
std::map<int, std::unique_ptr<gpu_group>>& groups() {
  static std::map<int, std::unique_ptr<gpu_group>> made;
  return made;
}
gpu_group& group_of(int gpus) {
  auto& made = groups()[gpus];
  if (!made) made = std::make_unique<gpu_group>(gpus);
  return *made;
}

template <class T>
device_buffer<T> random_slice(gpu_rank& rank, std::int64_t n, std::int64_t first, std::uint64_t salt) {
  device_buffer<T> out(static_cast<std::size_t>(n), rank.stream);
  fill_random_slice(out.data(), n, first, salt, rank.stream);
  return out;
}

/// A rank's slice of `total` items dealt out balanced over the group.
struct slice {
  std::int64_t first;
  std::int64_t count;
};
slice slice_of(const gpu_rank& rank, std::int64_t total) {
  const int p = rank.comm->size(), r = rank.comm->rank();
  const std::int64_t first = dist::share_begin(total, p, r);
  return {first, dist::share_begin(total, p, r + 1) - first};
}

/// Times `step` (one warm-up call first) and reports items a second over all GPUs.
template <class Step>
void time_group(benchmark::State& state, gpu_group& group, std::int64_t total, Step step) {
  group.time_ms(step);
  for (auto _ : state) state.SetIterationTime(group.time_ms(step) / 1e3);
  state.SetItemsProcessed(total * state.iterations());
  state.counters["gpus"] = group.size();
  state.counters["total_items"] = static_cast<double>(total);
}

/// The sort of `total` keys (with values of Value where not void) over `gpus` GPUs, exchanged in
/// `parts` (0: as the sort chooses).
template <class Key, class Value>
void sort_bench(benchmark::State& state, int gpus, std::int64_t total, int parts = 0) {
  gpu_group& group = group_of(gpus);
  std::vector<device_buffer<Key>> keys(static_cast<std::size_t>(gpus));
  std::vector<device_buffer<Value>> values(static_cast<std::size_t>(gpus));
  constexpr bool pairs = !std::is_same_v<Value, dist::no_values>;
  group.run([&](gpu_rank& rank) {
    const slice s = slice_of(rank, total);
    keys[slot(rank)] = random_slice<Key>(rank, s.count, s.first, 1);
    if constexpr (pairs) values[slot(rank)] = random_slice<Value>(rank, s.count, s.first, 2);
    LOOKBACK_CUDA_TRY(cudaStreamSynchronize(rank.stream));
  });
  std::int64_t moved = 0;
  time_group(
      state, group, total, [&](gpu_rank& rank) {
        const slice s = slice_of(rank, total);
        dist::sort_options options;
        options.exchange_parts = parts;
        if constexpr (pairs) {
          auto out = dist::sort_pairs(*rank.backend, *rank.comm, keys[slot(rank)].data(), values[slot(rank)].data(),
                                      s.count, options);
          if (rank.comm->rank() == 0) moved = out.moved;
        } else {
          auto out = dist::sort_keys(*rank.backend, *rank.comm, keys[slot(rank)].data(), s.count, options);
          if (rank.comm->rank() == 0) moved = out.moved;
        }
      });
  state.counters["moved_fraction"] = static_cast<double>(moved) / static_cast<double>(total);
  group.run([&](gpu_rank& rank) {
    keys[slot(rank)] = device_buffer<Key>();
    values[slot(rank)] = device_buffer<Value>();
  });
}

/// One input slice a rank and one output buffer, made before the timing; step(rank, in, out, count).
template <class In, class Out, class Step>
void per_rank_bench(benchmark::State& state, int gpus, std::int64_t total, std::int64_t out_items, Step step) {
  gpu_group& group = group_of(gpus);
  std::vector<device_buffer<In>> in(static_cast<std::size_t>(gpus));
  std::vector<device_buffer<Out>> out(static_cast<std::size_t>(gpus));
  group.run([&](gpu_rank& rank) {
    const slice s = slice_of(rank, total);
    in[slot(rank)] = random_slice<In>(rank, s.count, s.first, 3);
    out[slot(rank)] = device_buffer<Out>(static_cast<std::size_t>(out_items < 0 ? s.count : out_items), rank.stream);
    LOOKBACK_CUDA_TRY(cudaStreamSynchronize(rank.stream));
  });
  time_group(state, group, total, [&](gpu_rank& rank) {
    step(rank, in[slot(rank)].data(), out[slot(rank)].data(), slice_of(rank, total).count);
  });
  state.SetBytesProcessed(static_cast<std::int64_t>(total * sizeof(In)) * state.iterations());
  group.run([&](gpu_rank& rank) {
    in[slot(rank)] = device_buffer<In>();
    out[slot(rank)] = device_buffer<Out>();
  });
}

/// A rank's local sort of n uint32 keys by bits [begin_bit, end_bit), keys alone, as the distributed
/// sort's first step runs it.
void sort_locally(gpu_rank& rank, const std::uint32_t* in, std::uint32_t* out, std::int64_t n, int begin_bit = 0,
                  int end_bit = 32) {
  rank.backend->sort<false>(in, out, static_cast<const dist::no_values*>(nullptr), static_cast<dist::no_values*>(nullptr), n,
                            begin_bit, end_bit);
}

/// The sort's steps alone, to show where its time goes: each GPU sorting its slice (no exchange: the
/// ceiling of the sort's scaling), and each GPU merging its slice's two sorted halves (the last step
/// on two GPUs).
void local_sort_bench(benchmark::State& state, int gpus, std::int64_t total) {
  per_rank_bench<std::uint32_t, std::uint32_t>(
      state, gpus, total, -1,
      [](gpu_rank& r, const std::uint32_t* in, std::uint32_t* out, std::int64_t n) { sort_locally(r, in, out, n); });
}
void merge_bench(benchmark::State& state, int gpus, std::int64_t total) {
  gpu_group& group = group_of(gpus);
  std::vector<device_buffer<std::uint32_t>> runs(static_cast<std::size_t>(gpus)), out(static_cast<std::size_t>(gpus));
  group.run([&](gpu_rank& rank) {
    const slice s = slice_of(rank, total);
    const auto keys = random_slice<std::uint32_t>(rank, s.count, s.first, 5);
    runs[slot(rank)] = device_buffer<std::uint32_t>(static_cast<std::size_t>(s.count), rank.stream);
    out[slot(rank)] = device_buffer<std::uint32_t>(static_cast<std::size_t>(s.count), rank.stream);
    const std::int64_t half = s.count / 2;
    for (const auto [from, count] : {std::pair{std::int64_t{0}, half}, std::pair{half, s.count - half}})
      sort_locally(rank, keys.data() + from, runs[slot(rank)].data() + from, count);
    LOOKBACK_CUDA_TRY(cudaStreamSynchronize(rank.stream));
  });
  time_group(state, group, total, [&](gpu_rank& rank) {
    const std::int64_t n = slice_of(rank, total).count;
    const std::uint32_t* both = runs[slot(rank)].data();
    rank.backend->merge<false>(both, static_cast<const dist::no_values*>(nullptr), n / 2, both + n / 2,
                               static_cast<const dist::no_values*>(nullptr), n - n / 2, out[slot(rank)].data(),
                               static_cast<dist::no_values*>(nullptr), 0, 32);
  });
  state.SetBytesProcessed(static_cast<std::int64_t>(total * sizeof(std::uint32_t)) * state.iterations());
  group.run([&](gpu_rank& rank) {
    runs[slot(rank)] = device_buffer<std::uint32_t>();
    out[slot(rank)] = device_buffer<std::uint32_t>();
  });
}

/// The cut search alone on sorted slices (the sort's parts): its rounds of counts, all-reduces and
/// host waits.
void splitters_bench(benchmark::State& state, int gpus, std::int64_t total) {
  gpu_group& group = group_of(gpus);
  std::vector<device_buffer<std::uint32_t>> sorted(static_cast<std::size_t>(gpus));
  group.run([&](gpu_rank& rank) {
    const slice s = slice_of(rank, total);
    const auto keys = random_slice<std::uint32_t>(rank, s.count, s.first, 6);
    sorted[slot(rank)] = device_buffer<std::uint32_t>(static_cast<std::size_t>(s.count), rank.stream);
    sort_locally(rank, keys.data(), sorted[slot(rank)].data(), s.count);
    LOOKBACK_CUDA_TRY(cudaStreamSynchronize(rank.stream));
  });
  time_group(state, group, total, [&](gpu_rank& rank) {
    const int p = rank.comm->size();
    (void)dist::find_cuts<false>(*rank.backend, *rank.comm, sorted[slot(rank)].data(), slice_of(rank, total).count,
                                 total, dist::detail::part_positions(total, p, dist::detail::exchange_parts(0, total, p)),
                                 0, 32);
  });
  group.run([&](gpu_rank& rank) { sorted[slot(rank)] = device_buffer<std::uint32_t>(); });
}

/// Every rank sends `total / gpus / gpus` 4-byte items to each rank, as the sort's exchange of
/// uniform keys does: through lookback's alltoallv (one group of ncclSend/ncclRecv), or through
/// ncclAlltoAll on the same buffers. Bytes counted: those that leave each GPU, over all GPUs.
/// `shifted`: lookback's runs one item shorter and one item further on, so that, like the sort's
/// runs, they start 4 bytes past a 16-byte boundary.
void alltoall_bench(benchmark::State& state, int gpus, std::int64_t total, bool nccl, bool shifted = false) {
  const auto all_to_all = nccl_symbol<alltoall_fn>("ncclAlltoAll");
  if (nccl && all_to_all == nullptr) {
    state.SkipWithError("this NCCL has no ncclAlltoAll");
    return;
  }
  gpu_group& group = group_of(gpus);
  const std::int64_t per_peer = total / gpus / gpus;
  std::vector<device_buffer<std::uint32_t>> send(static_cast<std::size_t>(gpus)), recv(static_cast<std::size_t>(gpus));
  group.run([&](gpu_rank& rank) {
    send[slot(rank)] = random_slice<std::uint32_t>(rank, per_peer * gpus, 0, 4);
    recv[slot(rank)] = device_buffer<std::uint32_t>(static_cast<std::size_t>(per_peer * gpus), rank.stream);
    LOOKBACK_CUDA_TRY(cudaStreamSynchronize(rank.stream));
  });
  std::vector<std::int64_t> counts(static_cast<std::size_t>(gpus), per_peer), offsets(static_cast<std::size_t>(gpus));
  for (int j = 0; j < gpus; ++j) offsets[static_cast<std::size_t>(j)] = j * per_peer + (shifted ? 1 : 0);
  if (shifted) counts.assign(counts.size(), per_peer - 1);
  time_group(
      state, group, per_peer * gpus * gpus, [&](gpu_rank& rank) {
        const auto* from = send[slot(rank)].data();
        auto* to = recv[slot(rank)].data();
        if (nccl) {
          dist::detail::nccl_try(all_to_all(from, to, static_cast<size_t>(per_peer), ncclUint32, rank.comm->handle(),
                                            rank.stream),
                                 "ncclAlltoAll", rank.comm->handle());
        } else {
          rank.comm->alltoallv(from, counts.data(), offsets.data(), to, counts.data(), offsets.data(),
                               sizeof(std::uint32_t), rank.stream);
        }
      });
  state.SetBytesProcessed(static_cast<std::int64_t>(per_peer * gpus * (gpus - 1) * sizeof(std::uint32_t)) *
                          state.iterations());
  group.run([&](gpu_rank& rank) {
    send[slot(rank)] = device_buffer<std::uint32_t>();
    recv[slot(rank)] = device_buffer<std::uint32_t>();
  });
}

/// The two steps of the partition-first sort that docs/distributed.md sketches, from today's pieces, to
/// bound it before it is built: (1) each rank's slice partitioned by the keys' top 8 bits in `chunks`
/// chunks (a one-pass sort of bits [24, 32) of each chunk) on the work stream, each chunk's runs for
/// the other ranks sent on the exchange stream as soon as it is partitioned (uniform keys: rank j's
/// buckets hold the chunk's j-th share); (2) with `low_passes`, the rank's keys then sorted by bits
/// [0, 24), the three passes the design's segmented passes would make. Keys are not where the design
/// would put them, so only the times mean anything; the rank's own runs are not copied.
void partition_bound_bench(benchmark::State& state, int gpus, std::int64_t total, int chunks, bool low_passes) {
  gpu_group& group = group_of(gpus);
  std::vector<device_buffer<std::uint32_t>> in(static_cast<std::size_t>(gpus)), parted(static_cast<std::size_t>(gpus)),
      recv(static_cast<std::size_t>(gpus)), low(static_cast<std::size_t>(gpus));
  const std::int64_t chunk_cap = ((total + gpus - 1) / gpus + chunks - 1) / chunks;
  // Each run received from a 16-byte boundary: NCCL moved runs 4 bytes off one at 136 GB/s, not 307.
  const std::int64_t peer_cap = (chunk_cap / gpus + 1 + 3) / 4 * 4;
  group.run([&](gpu_rank& rank) {
    const slice s = slice_of(rank, total);
    in[slot(rank)] = random_slice<std::uint32_t>(rank, s.count, s.first, 7);
    parted[slot(rank)] = device_buffer<std::uint32_t>(static_cast<std::size_t>(s.count), rank.stream);
    recv[slot(rank)] = device_buffer<std::uint32_t>(static_cast<std::size_t>(chunks * peer_cap * gpus), rank.stream);
    if (low_passes) low[slot(rank)] = device_buffer<std::uint32_t>(static_cast<std::size_t>(s.count), rank.stream);
    LOOKBACK_CUDA_TRY(cudaStreamSynchronize(rank.stream));
  });
  time_group(state, group, total, [&](gpu_rank& rank) {
    const int p = rank.comm->size(), r = rank.comm->rank();
    const std::int64_t n = slice_of(rank, total).count;
    const std::uint32_t* keys = in[slot(rank)].data();
    std::uint32_t* out = parted[slot(rank)].data();
    std::vector<std::int64_t> send_counts(static_cast<std::size_t>(p)), send_offsets(send_counts),
        recv_counts(send_counts), recv_offsets(send_counts);
    for (int c = 0; c < chunks; ++c) {
      const std::int64_t begin = std::min(n, c * chunk_cap), end = std::min(n, (c + 1) * chunk_cap);
      sort_locally(rank, keys + begin, out + begin, end - begin, 24, 32);
      rank.backend->exchange_waits_for_work();
      for (int j = 0; j < p; ++j) {
        const auto u = static_cast<std::size_t>(j);
        // What rank j sends here is its own chunk c's share for this rank: slices may differ by an item.
        const std::int64_t n_j = dist::share_size(total, p, j);
        const std::int64_t chunk_j = std::min(n_j, (c + 1) * chunk_cap) - std::min(n_j, c * chunk_cap);
        send_counts[u] = j == r ? 0 : dist::share_size(end - begin, p, j);
        send_offsets[u] = begin + dist::share_begin(end - begin, p, j);
        recv_counts[u] = j == r ? 0 : dist::share_size(chunk_j, p, r);
        recv_offsets[u] = (c * p + j) * peer_cap;
      }
      rank.comm->alltoallv(out, send_counts.data(), send_offsets.data(), recv[slot(rank)].data(), recv_counts.data(),
                           recv_offsets.data(), sizeof(std::uint32_t), rank.backend->exchange_stream());
    }
    rank.backend->work_waits_for_exchange();
    if (low_passes) sort_locally(rank, out, low[slot(rank)].data(), n, 0, 24);
  });
  group.run([&](gpu_rank& rank) {
    for (auto* b : {&in, &parted, &recv, &low}) (*b)[slot(rank)] = device_buffer<std::uint32_t>();
  });
}

constexpr std::int64_t strong_total = std::int64_t{1} << 30;
constexpr std::int64_t weak_per_gpu = std::int64_t{1} << 29;

/// Registers `fn` with manual time and aggregates. A failure (an allocation past the memory of a GPU,
/// say) skips the row with its message, and the groups are made afresh for the next rows.
template <class Fn>
void add(const std::string& name, Fn fn) {
  benchmark::RegisterBenchmark(name.c_str(),
                               [fn](benchmark::State& state) {
                                 try {
                                   fn(state);
                                 } catch (const std::exception& e) {
                                   state.SkipWithError(e.what());
                                   groups().clear();
                                 }
                               })
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond)
      ->MinTime(0.2)
      ->Repetitions(5)
      ->ReportAggregatesOnly(true);
}

/// "dist_sort_keys/uint32/gpus:2/1073741824"
std::string row(const char* op, const char* type, int gpus, std::int64_t total) {
  return std::string(op) + "/" + type + "/gpus:" + std::to_string(gpus) + "/" + std::to_string(total);
}

void register_all(int available) {
  std::vector<int> counts;
  for (int g = 1; g <= available; g *= 2) counts.push_back(g);
  if (counts.back() != available) counts.push_back(available);
  for (int g : counts) {
    add(row("dist_sort_keys", "uint32", g, strong_total),
        [g](benchmark::State& s) { sort_bench<std::uint32_t, dist::no_values>(s, g, strong_total); });
    add(row("dist_sort_keys", "uint64", g, strong_total),
        [g](benchmark::State& s) { sort_bench<std::uint64_t, dist::no_values>(s, g, strong_total); });
    add(row("dist_sort_pairs", "uint32", g, strong_total),
        [g](benchmark::State& s) { sort_bench<std::uint32_t, std::uint32_t>(s, g, strong_total); });
    add(row("dist_sort_keys_weak", "uint32", g, weak_per_gpu * g),
        [g](benchmark::State& s) { sort_bench<std::uint32_t, dist::no_values>(s, g, weak_per_gpu * g); });
    add(row("dist_sort_local", "uint32", g, strong_total),
        [g](benchmark::State& s) { local_sort_bench(s, g, strong_total); });
    add(row("dist_merge", "uint32", g, strong_total), [g](benchmark::State& s) { merge_bench(s, g, strong_total); });
    add(row("dist_sort_low24", "uint32", g, strong_total), [g](benchmark::State& s) {
      per_rank_bench<std::uint32_t, std::uint32_t>(
          s, g, strong_total, -1,
          [](gpu_rank& r, const std::uint32_t* in, std::uint32_t* out, std::int64_t n) { sort_locally(r, in, out, n, 0, 24); });
    });
    add(row("dist_histogram256", "uint32", g, strong_total), [g](benchmark::State& s) {
      per_rank_bench<std::uint32_t, std::uint32_t>(s, g, strong_total, 256, [](gpu_rank& r, const std::uint32_t* in,
                                                                              std::uint32_t* out, std::int64_t n) {
        dist::histogram_even(*r.backend, *r.comm, in, n, out, 256, std::int64_t{0}, std::int64_t{1} << 32);
      });
    });
    add(row("dist_scan", "uint32", g, strong_total), [g](benchmark::State& s) {
      per_rank_bench<std::uint32_t, std::uint32_t>(s, g, strong_total, -1, [](gpu_rank& r, const std::uint32_t* in,
                                                                             std::uint32_t* out, std::int64_t n) {
        dist::exclusive_scan(*r.backend, *r.comm, in, out, n, 0u, sum{});
      });
    });
    if (g > 1) {
      add(row("dist_alltoall_lookback", "uint32", g, strong_total),
          [g](benchmark::State& s) { alltoall_bench(s, g, strong_total, false); });
      add(row("dist_alltoall_nccl", "uint32", g, strong_total),
          [g](benchmark::State& s) { alltoall_bench(s, g, strong_total, true); });
      add(row("dist_alltoall_shifted", "uint32", g, strong_total),
          [g](benchmark::State& s) { alltoall_bench(s, g, strong_total, false, true); });
      add(row("dist_splitters", "uint32", g, strong_total),
          [g](benchmark::State& s) { splitters_bench(s, g, strong_total); });
      // The partition-first design's bound (partition_bound_bench): its first step alone in 1 to 8 chunks,
      // and with the three low passes after it.
      for (int chunks : {1, 2, 4, 8})
        add(row(("dist_bound_partition_exchange" + std::to_string(chunks)).c_str(), "uint32", g, strong_total),
            [g, chunks](benchmark::State& s) { partition_bound_bench(s, g, strong_total, chunks, false); });
      for (int chunks : {2, 4})
        add(row(("dist_bound_partition_first" + std::to_string(chunks)).c_str(), "uint32", g, strong_total),
            [g, chunks](benchmark::State& s) { partition_bound_bench(s, g, strong_total, chunks, true); });
      add(row("dist_bound_partition_first4_weak", "uint32", g, weak_per_gpu * g),
          [g](benchmark::State& s) { partition_bound_bench(s, g, weak_per_gpu * g, 4, true); });
      for (int parts : {1, 2, 4, 8, 16})  // the sort's exchange in parts (detail::exchange_parts)
        add(row(("dist_sort_keys_parts" + std::to_string(parts)).c_str(), "uint32", g, strong_total),
            [g, parts](benchmark::State& s) { sort_bench<std::uint32_t, dist::no_values>(s, g, strong_total, parts); });
    }
  }
}

}  // namespace
}  // namespace lookback::bench

int main(int argc, char** argv) {
  int gpus = 0;
  if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus == 0) {
    std::fprintf(stderr, "lookback_dist_bench: no GPU\n");
    return 69;  // EX_UNAVAILABLE
  }
  cudaDeviceProp props{};
  if (cudaGetDeviceProperties(&props, 0) != cudaSuccess) return 69;
  benchmark::AddCustomContext("gpu", props.name);
  benchmark::AddCustomContext("gpus", std::to_string(gpus));
  benchmark::AddCustomContext("nccl", lookback::dist::nccl_version());
  lookback::bench::register_all(gpus);
  lookback::bench::register_copy_engine_rows(gpus, std::int64_t{1} << 30);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 64;  // EX_USAGE
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  lookback::bench::groups().clear();  // the communicators go before the CUDA runtime does
  return 0;
}
