// The CPU backend's streamed runs: the references of typed_ops, histogram_ops and select_ops applied
// chunk by chunk within the host budget, the running value carried between chunks so that the result
// is the sequential one bit for bit (the deterministic scan and reduction: cpu::deterministic_scan's
// association, in chunks at window multiples).
#include "typed/histogram_visit.hpp"
#include "typed/stream_ops.hpp"
#include "typed/visit.hpp"

#include <lookback/primitives/cpu/deterministic_scan.hpp>

#include <cstring>
#include <optional>
#include <vector>

namespace lookback::typed {
namespace {

/// Reads every chunk of the plan into host buffers and calls `work(first, count, inputs)`; the buffers
/// hold one chunk of each source.
template <class Work>
pipelines::chunk_plan cpu_chunks(const std::vector<pipelines::source*>& sources, std::size_t out_item_bytes,
                                 const pipelines::stream_options& o, Work&& work) {
  const std::int64_t n = sources.front()->size();
  pipelines::chunk_costs costs;
  std::size_t widest = out_item_bytes;
  for (const auto* s : sources) {
    costs.host_per_item += s->item_bytes();
    widest = std::max(widest, s->item_bytes());
  }
  costs.host_per_item += out_item_bytes;
  pipelines::stream_options cpu = o;
  cpu.limits.device_bytes = ~std::size_t{0};  // no device here
  if (cpu.limits.host_bytes == 0) cpu.limits.host_bytes = std::size_t{4} << 30;
  cpu.plan.depth = 1;
  const pipelines::chunk_plan plan = pipelines::detail::plan_for(n, widest, costs, cpu);
  std::vector<std::vector<std::byte>> buffers;
  for (const auto* s : sources) buffers.emplace_back(static_cast<std::size_t>(plan.chunk_items) * s->item_bytes());
  for (std::int64_t k = 0; k < plan.chunks; ++k) {
    const std::int64_t first = plan.first_of(k), count = plan.count_of(k);
    try {
      std::vector<const std::byte*> inputs;
      for (std::size_t i = 0; i < sources.size(); ++i) {
        sources[i]->read(first, count, buffers[i].data());
        inputs.push_back(buffers[i].data());
      }
      work(first, count, inputs);
    } catch (const pipelines::stream_error& e) {
      throw pipelines::stream_error(e.what_failed(), std::string(e.what()) + " (chunk " + std::to_string(k + 1) + " of " +
                                                         std::to_string(plan.chunks) + ")");
    }
    if (o.progress) o.progress(first + count, n);
  }
  return plan;
}

/// The deterministic association in chunks of whole windows, the running value carried: `out` (null
/// for a reduction) gets each chunk's scan, `running` the total (none: an inclusive scan before its
/// first item).
template <class T, class Op>
pipelines::chunk_plan deterministic_chunks(pipelines::source& in, pipelines::sink* out, Op op, std::optional<T>& running,
                                           bool exclusive, pipelines::stream_options o) {
  o.plan.chunk_multiple = cpu::deterministic_window_granules * cpu::deterministic_granule_items;
  std::vector<T> result;
  return cpu_chunks({&in}, out != nullptr ? sizeof(T) : 0, o, [&](std::int64_t first, std::int64_t count, const auto& inputs) {
    if (out != nullptr) result.resize(static_cast<std::size_t>(count));
    running = cpu::deterministic_scan(reinterpret_cast<const T*>(inputs[0]), out != nullptr ? result.data() : nullptr,
                                      count, op, running, exclusive);
    if (out != nullptr) out->write(first, count, result.data());
  });
}

}  // namespace

stream_outcome reduce_stream_cpu(io::dtype type, op_kind op, pipelines::source& in, void* result,
                                 const pipelines::stream_options& o, bool deterministic) {
  stream_outcome outcome;
  if (deterministic) {
    visit_numeric(type, [&](auto zero) {
      using T = decltype(zero);
      visit_op(op, [&](auto reduce_op) {
        std::optional<T> running = identity_of<T>(reduce_op);
        outcome.plan = deterministic_chunks<T>(in, nullptr, reduce_op, running, true, o);
        std::memcpy(result, &*running, sizeof(T));
      });
    });
    return outcome;
  }
  scalar running = identity(type, op);
  outcome.plan = cpu_chunks({&in}, 0, o, [&](std::int64_t, std::int64_t count, const auto& inputs) {
    reduce_cpu_chunk(type, op, inputs[0], count, running);
  });
  std::memcpy(result, running.bytes.data(), io::dtype_size(type));
  return outcome;
}

stream_outcome scan_stream_cpu(const scan_spec& spec, pipelines::source& in, pipelines::sink& out,
                               const pipelines::stream_options& o) {
  if (spec.deterministic) {
    stream_outcome outcome;
    visit_numeric(spec.type, [&](auto zero) {
      using T = decltype(zero);
      visit_op(spec.op, [&](auto op) {
        std::optional<T> running;
        if (!spec.inclusive) running = scalar_as<T>(spec.init);
        outcome.plan = deterministic_chunks<T>(in, &out, op, running, !spec.inclusive, o);
      });
    });
    return outcome;
  }
  scalar running = spec.inclusive ? identity(spec.type, spec.op) : spec.init;
  const std::size_t width = io::dtype_size(spec.type);
  std::vector<std::byte> result;
  stream_outcome outcome;
  outcome.plan = cpu_chunks({&in}, width, o, [&](std::int64_t first, std::int64_t count, const auto& inputs) {
    result.resize(static_cast<std::size_t>(count) * width);
    scan_cpu_chunk(spec, inputs[0], result.data(), count, running, first == 0);
    out.write(first, count, result.data());
  });
  return outcome;
}

stream_outcome histogram_stream_cpu(const histogram_spec& spec, pipelines::source& samples, void* h_counts,
                                    const pipelines::stream_options& o) {
  stream_outcome outcome;
  visit_histogram_counter(spec.counter, [&](auto zero) {
    using Counter = decltype(zero);
    auto* total = static_cast<Counter*>(h_counts);
    std::fill(total, total + spec.num_bins, Counter{0});
    std::vector<Counter> counts(static_cast<std::size_t>(spec.num_bins));
    outcome.plan = cpu_chunks({&samples}, 0, o, [&](std::int64_t, std::int64_t count, const auto& inputs) {
      histogram_even_cpu(spec, inputs[0], count, counts.data());
      for (int b = 0; b < spec.num_bins; ++b) total[b] = static_cast<Counter>(total[b] + counts[b]);
    });
  });
  return outcome;
}

stream_outcome select_stream_cpu(const select_spec& spec, pipelines::source& values, pipelines::source* flags,
                                 pipelines::sink& out, const pipelines::stream_options& o) {
  std::vector<pipelines::source*> sources{&values};
  if (flags != nullptr) sources.push_back(flags);
  const std::size_t width = io::dtype_size(spec.type);
  std::vector<std::byte> kept;
  stream_outcome outcome;
  outcome.plan = cpu_chunks(sources, width, o, [&](std::int64_t, std::int64_t count, const auto& inputs) {
    kept.resize(static_cast<std::size_t>(count) * width);
    const auto* f = flags != nullptr ? reinterpret_cast<const std::uint8_t*>(inputs[1]) : nullptr;
    const std::int64_t k = select_cpu(spec, inputs[0], f, kept.data(), count);
    out.write(outcome.kept, k, kept.data());
    outcome.kept += k;
  });
  return outcome;
}

}  // namespace lookback::typed
