#pragma once
// The streaming engine: chunks of one or more sources go through `depth` slots so that the
// host-to-device copy of chunk k+1, the kernels of chunk k and the device-to-host copy of chunk k-1
// overlap. Three CUDA streams (copy in, compute, copy out) order the device work through per-slot
// events; a reader thread fills the pinned staging (pread), so the disk never waits for the GPU, and a
// writer thread drains each chunk's output into the sink. The host waits only where the depth says a
// slot must be free again. Any failure stops every thread and is rethrown once, naming the chunk.
#include <lookback/pipelines/chunk_plan.hpp>
#include <lookback/pipelines/pinned_buffer.hpp>
#include <lookback/pipelines/sink.hpp>
#include <lookback/pipelines/source.hpp>
#include <lookback/pipelines/stream_error.hpp>
#include <lookback/primitives/device_buffer.cuh>
#include <lookback/primitives/error.cuh>
#include <lookback/primitives/event.cuh>
#include <lookback/primitives/stream.cuh>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace lookback::pipelines {

/// One chunk as the compute step sees it: its items [first, first + count) of every input, on the device.
struct chunk {
  std::int64_t index = 0;
  std::int64_t first = 0;
  std::int64_t count = 0;
  int slot = 0;
  std::vector<const void*> d_in;  // one per source, in the job's order
  void* d_out = nullptr;          // chunk_items * out_item_bytes, or null without an output
};

struct chunk_job {
  std::vector<source*> inputs;     // the same number of items each
  sink* output = nullptr;          // null: the run leaves its result on the device (reduce, histogram)
  std::size_t out_item_bytes = 0;
  /// Enqueues the chunk's kernels on `stream` (the compute stream), reading c.d_in and writing c.d_out.
  std::function<void(const chunk& c, cudaStream_t stream)> compute;
  /// Items of c.d_out to write, asked on the writer thread once the chunk's compute has finished (a
  /// compaction copies its count to pinned memory in compute); default: c.count.
  std::function<std::int64_t(const chunk& c)> output_items;
  /// Items whose work is done, from the thread that finished them (for a progress bar).
  std::function<void(std::int64_t items_done)> progress;
  /// Replaces the copy into `output` when set (an external sort scatters each chunk's runs to many
  /// places): called on the writer thread, in chunk order, once the chunk's compute has finished, with
  /// the copy-out stream; the chunk's slot is not reused before it returns.
  std::function<void(const chunk& c, cudaStream_t copy_out)> drain;
};

/// What each slot takes: the inputs' items, then the output's, on the device; the host side likewise
/// for every source and sink not already in host memory (files: pinned staging).
inline std::size_t slot_device_bytes_per_item(const chunk_job& job) {
  std::size_t bytes = job.out_item_bytes;
  for (const source* s : job.inputs) bytes += s->item_bytes();
  return bytes;
}
inline std::size_t slot_host_bytes_per_item(const chunk_job& job) {
  std::size_t bytes = job.output != nullptr && job.output->host_items() == nullptr ? job.out_item_bytes : 0;
  for (const source* s : job.inputs)
    if (s->host_items() == nullptr) bytes += s->item_bytes();
  return bytes;
}

namespace detail {

inline std::size_t round_up(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

/// The progress the three threads share, and the first failure.
class pipeline_state {
 public:
  /// Blocks until `counter` reaches `target` or a failure stopped the run; false when stopped.
  bool wait_for(const std::int64_t& counter, std::int64_t target) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return counter >= target || failure_; });
    return !failure_;
  }
  void advance(std::int64_t& counter, std::int64_t value) {
    {
      std::lock_guard lock(mutex_);
      counter = value;
    }
    changed_.notify_all();
  }
  void fail(std::exception_ptr e) {
    {
      std::lock_guard lock(mutex_);
      if (!failure_) failure_ = e;
    }
    changed_.notify_all();
  }
  /// A thread running `work`, whose failure stops the run.
  template <class Work>
  std::thread spawn(Work work) {
    // The caller's device is the thread's too: the events and copies it makes belong to that device.
    int device = 0;
    LOOKBACK_CUDA_TRY(cudaGetDevice(&device));
    return std::thread([this, work, device]() mutable {
      try {
        LOOKBACK_CUDA_TRY(cudaSetDevice(device));
        work();
      } catch (...) {
        fail(std::current_exception());
      }
    });
  }
  [[nodiscard]] std::exception_ptr failure() {
    std::lock_guard lock(mutex_);
    return failure_;
  }
  std::int64_t read = 0;     // chunks staged on the host
  std::int64_t issued = 0;   // chunks whose copy in and compute are enqueued
  std::int64_t written = 0;  // chunks whose output reached the sink

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::exception_ptr failure_;
};

/// Runs `step`, turning a CUDA error into a stream_error(kind::device) led by label().
template <class Label, class Step>
void naming_device_errors(Label&& label, Step&& step) {
  try {
    step();
  } catch (const cuda_error& e) {
    throw stream_error(stream_error::kind::device, label() + ": " + e.what(), static_cast<int>(e.code()));
  }
}

/// Runs `step`, turning what it throws into one stream_error that names the chunk.
template <class Step>
void in_chunk(std::int64_t k, const chunk_plan& plan, Step&& step) {
  const std::string of = std::to_string(k + 1) + " of " + std::to_string(plan.chunks);
  try {
    naming_device_errors(
        [&] {
          return "chunk " + of + " (items " + std::to_string(plan.first_of(k)) + ".." +
                 std::to_string(plan.first_of(k) + plan.count_of(k) - 1) + ")";
        },
        step);
  } catch (const stream_error& e) {
    if (e.what_failed() == stream_error::kind::device) throw;
    throw stream_error(e.what_failed(), std::string(e.what()) + " (chunk " + of + ")");
  }
}

}  // namespace detail

/// Streams every chunk of `plan` through `job`; returns once the last output is in the sink and the
/// compute stream has drained. Buffers are allocated here, within what plan_chunks allowed.
inline void run_chunks(const chunk_job& job, const chunk_plan& plan) {
  if (plan.chunks == 0) return;
  const int depth = plan.depth;
  const std::size_t items = static_cast<std::size_t>(plan.chunk_items);
  const std::size_t inputs = job.inputs.size();
  const cuda_stream copy_in, compute, copy_out;

  struct slot {
    std::vector<device_buffer<std::byte>> d_in;
    device_buffer<std::byte> d_out;
    std::vector<std::byte*> h_in;  // into `staging`, null for a source in host memory
    std::byte* h_out = nullptr;
    pinned_buffer staging;
    cuda_event staged, computed;
  };
  std::vector<slot> slots(static_cast<std::size_t>(depth));
  for (slot& s : slots) {
    const bool staged_output = job.output != nullptr && job.output->host_items() == nullptr;
    std::size_t host_bytes = staged_output ? detail::round_up(items * job.out_item_bytes) : 0;
    for (const source* src : job.inputs)
      if (src->host_items() == nullptr) host_bytes += detail::round_up(items * src->item_bytes());
    s.staging = pinned_buffer(host_bytes);
    std::byte* at = s.staging.data();
    for (const source* src : job.inputs) {
      s.d_in.emplace_back(items * src->item_bytes(), compute);
      s.h_in.push_back(src->host_items() == nullptr ? at : nullptr);
      if (src->host_items() == nullptr) at += detail::round_up(items * src->item_bytes());
    }
    if (job.out_item_bytes > 0) s.d_out = device_buffer<std::byte>(items * job.out_item_bytes, compute);
    if (staged_output) s.h_out = at;
  }
  // The buffers were allocated in stream order on `compute`; the other streams use them from now on.
  LOOKBACK_CUDA_TRY(cudaStreamSynchronize(compute));

  detail::pipeline_state state;
  const auto chunk_of = [&](std::int64_t k) {
    slot& s = slots[static_cast<std::size_t>(k % depth)];
    chunk c;
    c.index = k;
    c.first = plan.first_of(k);
    c.count = plan.count_of(k);
    c.slot = static_cast<int>(k % depth);
    for (auto& d : s.d_in) c.d_in.push_back(d.data());
    c.d_out = s.d_out.data();
    return c;
  };

  std::thread reader = state.spawn([&] {
    for (std::int64_t k = 0; k < plan.chunks; ++k) {
      slot& s = slots[static_cast<std::size_t>(k % depth)];
      // The staging is free again once chunk k - depth's copy in, enqueued before `issued` moved, is done.
      if (k >= depth) {
        if (!state.wait_for(state.issued, k - depth + 1)) return;
        detail::in_chunk(k - depth, plan, [&] { LOOKBACK_CUDA_TRY(cudaEventSynchronize(s.staged)); });
      }
      detail::in_chunk(k, plan, [&] {
        for (std::size_t i = 0; i < inputs; ++i)
          if (s.h_in[i] != nullptr) job.inputs[i]->read(plan.first_of(k), plan.count_of(k), s.h_in[i]);
      });
      state.advance(state.read, k + 1);
    }
  });

  const bool drained = job.output != nullptr || job.drain;
  std::thread writer;
  // Started inside the try below: a thread that cannot start fails the run, and the reader is joined.
  const auto start_writer = [&] {
    if (!drained) return;
    writer = state.spawn([&] {
      std::int64_t out_first = 0;
      for (std::int64_t k = 0; k < plan.chunks; ++k) {
        if (!state.wait_for(state.issued, k + 1)) return;
        slot& s = slots[static_cast<std::size_t>(k % depth)];
        const chunk c = chunk_of(k);
        detail::in_chunk(k, plan, [&] {
          LOOKBACK_CUDA_TRY(cudaEventSynchronize(s.computed));
          if (job.drain) return job.drain(c, copy_out);
          const std::int64_t out_items = job.output_items ? job.output_items(c) : c.count;
          auto* direct = static_cast<std::byte*>(job.output->host_items());
          std::byte* to = direct != nullptr ? direct + static_cast<std::size_t>(out_first) * job.out_item_bytes : s.h_out;
          LOOKBACK_CUDA_TRY(cudaMemcpyAsync(to, s.d_out.data(), static_cast<std::size_t>(out_items) * job.out_item_bytes,
                                            cudaMemcpyDeviceToHost, copy_out));
          LOOKBACK_CUDA_TRY(cudaStreamSynchronize(copy_out));
          if (direct == nullptr) job.output->write(out_first, out_items, s.h_out);
          out_first += out_items;
        });
        state.advance(state.written, k + 1);
        if (job.progress) job.progress(c.first + c.count);
      }
    });
  };

  try {
    start_writer();
    for (std::int64_t k = 0; k < plan.chunks; ++k) {
      if (!state.wait_for(state.read, k + 1)) break;
      slot& s = slots[static_cast<std::size_t>(k % depth)];
      const chunk c = chunk_of(k);
      detail::in_chunk(k, plan, [&] {
        // Chunk k - depth's kernels must be done with the slot's device inputs before they are overwritten.
        if (k >= depth) LOOKBACK_CUDA_TRY(cudaStreamWaitEvent(copy_in, s.computed));
        for (std::size_t i = 0; i < inputs; ++i) {
          const std::size_t bytes = static_cast<std::size_t>(c.count) * job.inputs[i]->item_bytes();
          const void* from = s.h_in[i];
          if (from == nullptr)
            from = static_cast<const std::byte*>(job.inputs[i]->host_items()) +
                   static_cast<std::size_t>(c.first) * job.inputs[i]->item_bytes();
          LOOKBACK_CUDA_TRY(cudaMemcpyAsync(s.d_in[i].data(), from, bytes, cudaMemcpyHostToDevice, copy_in));
        }
        LOOKBACK_CUDA_TRY(cudaEventRecord(s.staged, copy_in));
        LOOKBACK_CUDA_TRY(cudaStreamWaitEvent(compute, s.staged));
      });
      // The slot's output must have reached the sink before this chunk's kernels overwrite it.
      if (drained && k >= depth && !state.wait_for(state.written, k - depth + 1)) break;
      detail::in_chunk(k, plan, [&] {
        job.compute(c, compute);
        LOOKBACK_CUDA_TRY(cudaEventRecord(s.computed, compute));
      });
      state.advance(state.issued, k + 1);
      if (!drained && job.progress) job.progress(c.first + c.count);
    }
    if (!state.failure()) {
      if (drained) state.wait_for(state.written, plan.chunks);
      detail::in_chunk(plan.chunks - 1, plan, [&] { LOOKBACK_CUDA_TRY(cudaStreamSynchronize(compute)); });
    }
  } catch (...) {
    state.fail(std::current_exception());
  }
  reader.join();
  if (writer.joinable()) writer.join();
  // Whatever is still enqueued must finish before the buffers go.
  (void)cudaStreamSynchronize(copy_in);
  (void)cudaStreamSynchronize(compute);
  (void)cudaStreamSynchronize(copy_out);
  if (std::exception_ptr e = state.failure()) std::rethrow_exception(e);
}

}  // namespace lookback::pipelines
