#pragma once
// The GPU side of the external sort (sort/msd_sort.hpp): the counting and scattering passes stream the
// input through the chunk pipeline; the buckets go through two slots on three streams, so that the
// next bucket's copy in, this one's sort and the previous one's copy out overlap. Every sort, of a
// chunk by its digit or of a whole bucket, is the caller's step (CUB's two-phase signature), so the
// command can check each against CUB's.
#include <lookback/pipelines/chunk_pipeline.hpp>
#include <lookback/pipelines/device/digit_stats_kernel.cuh>
#include <lookback/pipelines/sort/msd_sort.hpp>
#include <lookback/pipelines/sort/piece_ring.hpp>
#include <lookback/pipelines/stream_options.hpp>
#include <lookback/primitives/event.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <thread>
#include <utility>
#include <vector>

namespace lookback::pipelines {

template <class Key, bool Descending, class Step>
class gpu_sort_backend {
 public:
  static constexpr std::size_t key_bytes = sizeof(Key);

  gpu_sort_backend(std::size_t value_bytes, int begin_bit, int end_bit, const stream_options& options, Step& step)
      : value_bytes_(value_bytes), begin_bit_(begin_bit), end_bit_(end_bit), options_(options), step_(step),
        budget_(detail::resolve_budget(options)),
        // Pieces of a bucket's copies to and from a file: an eighth of the host budget at most.
        piece_bytes_(std::clamp<std::size_t>(budget_.host_bytes / 8, 4096, detail::piece_ring::max_piece_bytes)) {
    options_.on_plan = nullptr;
    options_.progress = nullptr;
    progress_ = options.progress;
    int device = 0;
    LOOKBACK_CUDA_TRY(cudaGetDevice(&device));
    LOOKBACK_CUDA_TRY(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, device));
  }

  /// One slot of keys and values in and out, and the sort's temporary storage; in host memory the rings
  /// and what a caller's step takes there per item (a verification's copies).
  bool fits_in_core(source& keys, source* values, sink& keys_out, sink* values_out) {
    const std::int64_t n = keys.size();
    const bool staged = keys.host_items() == nullptr || keys_out.host_items() == nullptr ||
                        (values != nullptr && (values->host_items() == nullptr || values_out->host_items() == nullptr));
    const std::size_t host = (staged ? 2 * detail::piece_ring::bytes_for(piece_bytes_) : 0) +
                             options_.extra_host_per_item * static_cast<std::size_t>(n);
    const bool fits = n <= max_sort_items && bucket_bytes(n, 1) <= budget_.device_bytes && host <= budget_.host_bytes;
    total_work_ = fits ? n : 3 * n;
    return fits;
  }

  /// The widest bucket two slots hold within the device budget.
  std::int64_t bucket_items() const {
    constexpr std::int64_t smallest = 1024;
    if (bucket_bytes(smallest, 2) > budget_.device_bytes)
      throw stream_error(stream_error::kind::budget,
                         "the device memory limit is too small for the external sort's buckets of " +
                             std::to_string(smallest) + " items: they need at least " +
                             size_text(bucket_bytes(smallest, 2)) + " (limit " + size_text(budget_.device_bytes) + ")");
    std::int64_t lo = smallest, hi = max_sort_items;
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo + 1) / 2;
      if (bucket_bytes(mid, 2) <= budget_.device_bytes)
        lo = mid;
      else
        hi = mid - 1;
    }
    // What a caller's step takes in host memory per item (a verification's copies) has half the host
    // budget for a bucket; host_reserve counts it beside the spills.
    if (options_.extra_host_per_item != 0) {
      const auto host_cap = static_cast<std::int64_t>(budget_.host_bytes / 2 / options_.extra_host_per_item);
      if (host_cap < smallest)
        throw stream_error(stream_error::kind::budget,
                           "the host memory limit is too small for the external sort's buckets of " +
                               std::to_string(smallest) + " items: they need at least " +
                               size_text(2 * static_cast<std::size_t>(smallest) * options_.extra_host_per_item) + " (limit " +
                               size_text(budget_.host_bytes) + ")");
      lo = std::min(lo, host_cap);
    }
    return lo;
  }

  /// The pinned staging of the passes: three slots of the widest chunks in and out, and the buckets' rings;
  /// and a caller's host memory for the widest bucket.
  std::size_t host_reserve() const {
    const std::size_t step_host_bytes =
        options_.extra_host_per_item == 0 ? 0 : options_.extra_host_per_item * static_cast<std::size_t>(bucket_items());
    return 3 * 2 * options_.max_chunk_bytes + 2 * detail::piece_ring::bytes_for(piece_bytes_) + step_host_bytes;
  }

  digit_stats count(source& keys, const digit_pass& pass) {
    const std::int64_t n = keys.size();
    const std::size_t digits = std::size_t{1} << pass.width;
    chunk_costs costs;
    costs.device_per_item = key_bytes;
    costs.host_per_item = keys.host_items() == nullptr ? key_bytes : 0;
    costs.device_fixed = (digits + 2) * sizeof(unsigned long long);
    const chunk_plan plan = detail::plan_for(n, key_bytes, costs, options_);

    const cuda_stream setup;
    device_buffer<unsigned long long> d_stats(digits + 2, setup);  // the counts, then the field's min and max
    LOOKBACK_CUDA_TRY(cudaMemsetAsync(d_stats.data(), 0, (digits + 2) * sizeof(unsigned long long), setup));
    LOOKBACK_CUDA_TRY(cudaMemsetAsync(d_stats.data() + digits, 0xff, sizeof(unsigned long long), setup));
    LOOKBACK_CUDA_TRY(cudaStreamSynchronize(setup));
    chunk_job job;
    job.inputs = {&keys};
    job.compute = [&](const chunk& c, cudaStream_t stream) {
      count_digits(static_cast<const Key*>(c.d_in[0]), c.count, pass, d_stats.data(), d_stats.data() + digits, stream);
    };
    job.progress = progress_from(work_done_);
    run_chunks(job, plan);
    work_done_ += n;

    std::vector<unsigned long long> host(digits + 2);
    LOOKBACK_CUDA_TRY(cudaMemcpyAsync(host.data(), d_stats.data(), host.size() * sizeof(unsigned long long),
                                      cudaMemcpyDeviceToHost, setup));
    LOOKBACK_CUDA_TRY(cudaStreamSynchronize(setup));
    digit_stats stats;
    stats.counts.assign(host.begin(), host.begin() + static_cast<std::ptrdiff_t>(digits));
    stats.min_field = host[digits];
    stats.max_field = host[digits + 1];
    return stats;
  }

  void scatter(source& keys, source* values, const digit_pass& pass, const std::vector<int>& bucket_of,
               std::vector<std::int64_t>& cursor, const std::vector<std::int64_t>& bucket_end, sink& key_spill,
               sink* value_spill) {
    const std::int64_t n = keys.size();
    const std::size_t digits = std::size_t{1} << pass.width;
    const std::size_t vb = values != nullptr ? value_bytes_ : 0;
    const bool stage_out = key_spill.host_items() == nullptr || (value_spill != nullptr && value_spill->host_items() == nullptr);
    chunk_costs costs;
    costs.device_per_item = 2 * (key_bytes + vb);  // the chunk, and the chunk split by digit
    costs.host_per_item = (keys.host_items() == nullptr ? key_bytes : 0) +
                          (values != nullptr && values->host_items() == nullptr ? vb : 0) +
                          (stage_out ? key_bytes + vb : 0);
    costs.device_fixed = options_.plan.depth * digits * sizeof(unsigned long long);
    costs.temp_bytes = [&](std::int64_t items) { return temp_bytes(items, pass.shift, pass.shift + pass.width); };
    const chunk_plan plan = detail::plan_for(n, std::max(key_bytes, vb), costs, options_);
    if (plan.chunks == 0) return;
    const auto chunk_items = static_cast<std::size_t>(plan.chunk_items);

    const cuda_stream setup;
    struct slot {
      device_buffer<std::byte> keys, values;
      device_buffer<unsigned long long> counts;
      pinned_buffer staging;
    };
    std::vector<slot> slots(static_cast<std::size_t>(plan.depth));
    for (slot& s : slots) {
      s.keys = device_buffer<std::byte>(chunk_items * key_bytes, setup);
      if (vb != 0) s.values = device_buffer<std::byte>(chunk_items * vb, setup);
      s.counts = device_buffer<unsigned long long>(digits, setup);
      if (stage_out) s.staging = pinned_buffer(chunk_items * (key_bytes + vb));
    }
    pinned_buffer h_counts(slots.size() * digits * sizeof(unsigned long long));
    std::size_t temp = costs.temp_bytes(plan.chunk_items);
    device_buffer<std::byte> d_temp(temp, setup);
    LOOKBACK_CUDA_TRY(cudaStreamSynchronize(setup));

    chunk_job job;
    job.inputs = {&keys};
    if (values != nullptr) job.inputs.push_back(values);
    job.compute = [&](const chunk& c, cudaStream_t stream) {
      slot& s = slots[static_cast<std::size_t>(c.slot)];
      std::size_t bytes = temp;
      step_(d_temp.data(), bytes, static_cast<const Key*>(c.d_in[0]), reinterpret_cast<Key*>(s.keys.data()),
            vb != 0 ? c.d_in[1] : nullptr, vb != 0 ? s.values.data() : nullptr, c.count, pass.shift,
            pass.shift + pass.width, stream);
      LOOKBACK_CUDA_TRY(cudaMemsetAsync(s.counts.data(), 0, digits * sizeof(unsigned long long), stream));
      count_digits(reinterpret_cast<const Key*>(s.keys.data()), c.count, pass, s.counts.data(), nullptr, stream);
      LOOKBACK_CUDA_TRY(cudaMemcpyAsync(h_counts.data() + static_cast<std::size_t>(c.slot) * digits * sizeof(unsigned long long),
                                        s.counts.data(), digits * sizeof(unsigned long long), cudaMemcpyDeviceToHost,
                                        stream));
    };
    job.drain = [&](const chunk& c, cudaStream_t copy_out) {
      slot& s = slots[static_cast<std::size_t>(c.slot)];
      const auto* counts = reinterpret_cast<const unsigned long long*>(h_counts.data()) + static_cast<std::size_t>(c.slot) * digits;
      // The chunk's items per bucket, in bucket order: runs of consecutive digits.
      std::vector<std::pair<int, std::int64_t>> runs;
      for (std::size_t d = 0; d < digits; ++d) {
        if (counts[d] == 0) continue;
        if (runs.empty() || runs.back().first != bucket_of[d]) runs.emplace_back(bucket_of[d], 0);
        runs.back().second += static_cast<std::int64_t>(counts[d]);
      }
      for (const auto& [b, items] : runs) check_run_fits(cursor, bucket_end, static_cast<std::size_t>(b), items);
      drain_runs(s.keys.data(), key_bytes, key_spill, s.staging.data(), runs, cursor, c.count, copy_out);
      if (vb != 0)
        drain_runs(s.values.data(), vb, *value_spill, s.staging.data() + chunk_items * key_bytes, runs, cursor, c.count,
                   copy_out);
      for (const auto& [b, items] : runs) cursor[static_cast<std::size_t>(b)] += items;
    };
    job.progress = progress_from(work_done_);
    run_chunks(job, plan);
    work_done_ += n;
  }

  void sort_buckets(source& keys, source* values, sink& keys_out, sink* values_out, const std::vector<bucket_job>& jobs) {
    if (jobs.empty()) return;
    const std::size_t vb = values != nullptr ? value_bytes_ : 0;
    std::int64_t widest = 0;
    for (const bucket_job& j : jobs) widest = std::max(widest, j.count);
    const auto items = static_cast<std::size_t>(widest);
    const std::int64_t count = static_cast<std::int64_t>(jobs.size());
    const int depth = jobs.size() > 1 ? 2 : 1;

    const cuda_stream copy_in, compute, copy_out;
    struct slot {
      device_buffer<std::byte> keys_in, keys_out, values_in, values_out;
      cuda_event loaded, sorted;
    };
    std::vector<slot> slots(static_cast<std::size_t>(depth));
    for (slot& s : slots) {
      s.keys_in = device_buffer<std::byte>(items * key_bytes, compute);
      s.keys_out = device_buffer<std::byte>(items * key_bytes, compute);
      if (vb != 0) {
        s.values_in = device_buffer<std::byte>(items * vb, compute);
        s.values_out = device_buffer<std::byte>(items * vb, compute);
      }
    }
    std::size_t temp = temp_bytes(widest, begin_bit_, end_bit_);
    device_buffer<std::byte> d_temp(temp, compute);
    LOOKBACK_CUDA_TRY(cudaStreamSynchronize(compute));

    // read: buckets on the device; issued: buckets whose sort is enqueued; written: buckets in the output.
    detail::pipeline_state state;
    const auto named = [&](std::int64_t i, auto&& work) {
      detail::naming_device_errors(
          [&] {
            return "bucket " + std::to_string(i + 1) + " of " + std::to_string(count) + " (" +
                   std::to_string(jobs[static_cast<std::size_t>(i)].count) + " items)";
          },
          work);
    };
    const std::int64_t base = work_done_;
    const auto load = [&] {
      detail::piece_ring ring(piece_bytes_);
      for (std::int64_t i = 0; i < count; ++i) {
        const bucket_job& j = jobs[static_cast<std::size_t>(i)];
        slot& s = slots[static_cast<std::size_t>(i % depth)];
        if (i >= depth && !state.wait_for(state.written, i - depth + 1)) return;
        named(i, [&] {
          ring.to_device(keys, j.first, j.count, s.keys_in.data(), copy_in);
          if (vb != 0) ring.to_device(*values, j.first, j.count, s.values_in.data(), copy_in);
          LOOKBACK_CUDA_TRY(cudaEventRecord(s.loaded, copy_in));
        });
        state.advance(state.read, i + 1);
      }
    };
    const auto store = [&] {
      detail::piece_ring ring(piece_bytes_);
      std::int64_t done = 0;
      for (std::int64_t i = 0; i < count; ++i) {
        const bucket_job& j = jobs[static_cast<std::size_t>(i)];
        slot& s = slots[static_cast<std::size_t>(i % depth)];
        if (!state.wait_for(state.issued, i + 1)) return;
        named(i, [&] {
          LOOKBACK_CUDA_TRY(cudaStreamWaitEvent(copy_out, s.sorted));
          ring.from_device(s.keys_out.data(), j.count, keys_out, j.first, key_bytes, copy_out);
          if (vb != 0) ring.from_device(s.values_out.data(), j.count, *values_out, j.first, vb, copy_out);
        });
        state.advance(state.written, i + 1);
        done += j.count;
        report_progress(base + done);
      }
    };
    // Started inside the try: a thread that cannot start fails the run, and the one started is joined.
    std::thread loader, storer;
    try {
      loader = state.spawn(load);
      storer = state.spawn(store);
      for (std::int64_t i = 0; i < count; ++i) {
        const bucket_job& j = jobs[static_cast<std::size_t>(i)];
        slot& s = slots[static_cast<std::size_t>(i % depth)];
        if (!state.wait_for(state.read, i + 1)) break;
        named(i, [&] {
          LOOKBACK_CUDA_TRY(cudaStreamWaitEvent(compute, s.loaded));
          std::size_t bytes = temp;
          step_(d_temp.data(), bytes, reinterpret_cast<const Key*>(s.keys_in.data()),
                reinterpret_cast<Key*>(s.keys_out.data()), vb != 0 ? s.values_in.data() : nullptr,
                vb != 0 ? s.values_out.data() : nullptr, j.count, begin_bit_, j.end_bit, compute);
          LOOKBACK_CUDA_TRY(cudaEventRecord(s.sorted, compute));
        });
        state.advance(state.issued, i + 1);
      }
      state.wait_for(state.written, count);
    } catch (...) {
      state.fail(std::current_exception());
    }
    if (loader.joinable()) loader.join();
    if (storer.joinable()) storer.join();
    // Whatever is still enqueued must finish before the buffers go (after a success nothing is).
    (void)cudaStreamSynchronize(copy_in);
    (void)cudaStreamSynchronize(compute);
    (void)cudaStreamSynchronize(copy_out);
    if (std::exception_ptr e = state.failure()) std::rethrow_exception(e);
    for (const bucket_job& j : jobs) work_done_ += j.count;
  }

 private:
  /// Our radix sort ranks with 32-bit counters.
  static constexpr std::int64_t max_sort_items = std::numeric_limits<unsigned>::max();

  std::size_t temp_bytes(std::int64_t items, int begin_bit, int end_bit) const {
    std::size_t bytes = 0;
    step_(nullptr, bytes, static_cast<const Key*>(nullptr), static_cast<Key*>(nullptr), nullptr, nullptr, items, begin_bit,
          end_bit, cudaStream_t{});
    return bytes;
  }
  /// Device memory of `slots` slots of keys and values in and out, and the shared temporary storage.
  /// With what a caller's step takes beyond ours (a verification's copy) per item and once.
  std::size_t bucket_bytes(std::int64_t items, int slots) const {
    const auto n = static_cast<std::size_t>(items);
    return static_cast<std::size_t>(slots) * 2 * (key_bytes + value_bytes_) * n + temp_bytes(items, begin_bit_, end_bit_) +
           options_.extra_device_per_item * n + options_.extra_device_fixed;
  }

  void count_digits(const Key* d_keys, std::int64_t n, const digit_pass& pass, unsigned long long* d_counts,
                    unsigned long long* d_range, cudaStream_t stream) const {
    if (n == 0) return;
    // Two blocks an SM: each block adds its shared counters to the global ones once, at the end.
    const int blocks = static_cast<int>(std::min<std::int64_t>((n + 4095) / 4096, 2 * std::int64_t{sm_count_}));
    device::digit_stats_kernel<Key, Descending><<<blocks, 256, 0, stream>>>(d_keys, n, pass.shift, pass.width,
                                                                             pass.begin_bit, pass.hi_bit, d_counts, d_range);
    LOOKBACK_CUDA_TRY(cudaGetLastError());
  }

  /// A chunk split by digit goes out run by run, each at its bucket's cursor: straight from the device
  /// into host memory, or through pinned staging into a file.
  static void drain_runs(const std::byte* d_items, std::size_t bytes, sink& to, std::byte* staging,
                         const std::vector<std::pair<int, std::int64_t>>& runs, const std::vector<std::int64_t>& cursor,
                         std::int64_t total, cudaStream_t stream) {
    auto* host = static_cast<std::byte*>(to.host_items());
    if (host == nullptr)
      LOOKBACK_CUDA_TRY(cudaMemcpyAsync(staging, d_items, static_cast<std::size_t>(total) * bytes,
                                        cudaMemcpyDeviceToHost, stream));
    std::size_t at = 0;
    for (const auto& [b, items] : runs) {
      const std::size_t run = static_cast<std::size_t>(items) * bytes;
      if (host != nullptr)
        LOOKBACK_CUDA_TRY(cudaMemcpyAsync(host + static_cast<std::size_t>(cursor[static_cast<std::size_t>(b)]) * bytes,
                                          d_items + at, run, cudaMemcpyDeviceToHost, stream));
      at += run;
    }
    LOOKBACK_CUDA_TRY(cudaStreamSynchronize(stream));
    if (host != nullptr) return;
    at = 0;
    for (const auto& [b, items] : runs) {
      to.write(cursor[static_cast<std::size_t>(b)], items, staging + at);
      at += static_cast<std::size_t>(items) * bytes;
    }
  }

  std::function<void(std::int64_t)> progress_from(std::int64_t base) {
    if (!progress_) return nullptr;
    return [this, base](std::int64_t done) { report_progress(base + done); };
  }
  void report_progress(std::int64_t done) const {
    if (progress_) progress_(std::min(done, total_work_), total_work_);
  }

  std::size_t value_bytes_;
  int begin_bit_, end_bit_;
  stream_options options_;
  Step& step_;
  budget budget_;
  std::size_t piece_bytes_;
  std::function<void(std::int64_t, std::int64_t)> progress_;
  int sm_count_ = 1;
  std::int64_t total_work_ = 0, work_done_ = 0;
};

}  // namespace lookback::pipelines
