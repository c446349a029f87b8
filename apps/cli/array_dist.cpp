#include "cli/array_dist.hpp"

#include "cli/array_ops.hpp"
#include "cli/cli_error.hpp"
#include "cli/device_memory.hpp"
#include "cli/exit_codes.hpp"
#include "typed/compare.hpp"

#include <lookback/distributed/slices.hpp>
#include <lookback/pipelines/sink.hpp>

#include <cstring>

namespace lookback::cli {
namespace {

struct slice {
  std::int64_t begin = 0;
  std::int64_t count = 0;
};

slice slice_of(const rank_context& c, std::int64_t n) {
  return {dist::share_begin(n, c.ranks, c.rank), dist::share_size(n, c.ranks, c.rank)};
}

/// The host memory a slice's item takes: `host` for its data and results on the host, and `cpu_backend`
/// more on the CPU backend, whose "device" buffers (the uploaded copy, results, what an exchange
/// receives, a sort's order) are host memory too.
struct item_bytes {
  std::size_t host = 0;
  std::size_t cpu_backend = 0;
  /// The CPU backend's "device" copies taking as much again as the host's.
  static item_bytes twice(std::size_t host) { return {host, host}; }
};

/// Refuses, before reading, a slice whose data and results would pass the host memory limit of this
/// process, shared by its ranks.
void check_host_budget(const rank_context& c, std::int64_t count, item_bytes per_item, const stream_settings& s) {
  if (s.caps.host_bytes == 0) return;
  const std::size_t bytes_per_item = per_item.host + (s.b == backend::cpu ? per_item.cpu_backend : 0);
  const std::size_t need = static_cast<std::size_t>(count) * bytes_per_item * static_cast<std::size_t>(c.in_process);
  if (need > s.caps.host_bytes)
    throw cli_error(exit_code::usage, "its slice of " + std::to_string(count) + " items needs " + byte_size_text(need) +
                                          " of host memory (--host-memory-limit " + byte_size_text(s.caps.host_bytes) +
                                          "): start more ranks or raise the limit");
}

/// This rank's items of `in`, read (and the budget checked) as one agreed step.
std::vector<std::byte> read_slice(const rank_context& c, pipelines::source& in, slice sl, item_bytes per_item,
                                  const stream_settings& s) {
  std::vector<std::byte> items;
  agreed(c.r.comm, [&] {
    check_host_budget(c, sl.count, per_item, s);
    items.resize(static_cast<std::size_t>(sl.count) * in.item_bytes());
    if (sl.count > 0) in.read(sl.begin, sl.count, items.data());
  });
  return items;
}

void write_part(const rank_context& c, const shared_output& out, std::int64_t first, std::int64_t count, const void* items) {
  agreed(c.r.comm, [&] {
    if (count > 0) out.sink().write(first, count, items);
  });
}

/// The single-process run that --verify compares with: on GPUs checked against CUB as a single-process
/// --verify is; on the CPU the reference alone.
stream_settings single_process(const stream_settings& s) {
  stream_settings one = s;
  one.verify = s.b == backend::gpu;
  one.progress = nullptr;
  return one;
}

std::vector<std::byte> read_all(pipelines::source& in) {
  std::vector<std::byte> items(static_cast<std::size_t>(in.size()) * in.item_bytes());
  if (in.size() > 0) in.read(0, in.size(), items.data());
  return items;
}

std::vector<std::byte> read_back_all(const shared_output& out, std::int64_t n, std::size_t item_bytes) {
  std::vector<std::byte> items(static_cast<std::size_t>(n) * item_bytes);
  out.read_back(0, n, items.data());
  return items;
}

[[noreturn]] void differ(const launch& l, const std::string& what, const typed::mismatch& m) {
  throw cli_error(exit_code::software, "verify " + what + ": " + l.describe() + " differ from the single-process run at element " +
                                           std::to_string(m.index) + ": single process " + m.expected + ", distributed " +
                                           m.actual);
}

/// The first item where two arrays of `type` differ bit for bit.
std::optional<typed::mismatch> first_difference(io::dtype type, const std::vector<std::byte>& expected,
                                                const std::vector<std::byte>& actual) {
  const std::size_t w = io::dtype_size(type);
  const std::size_t n = std::min(expected.size(), actual.size()) / w;
  for (std::size_t i = 0; i < n; ++i)
    if (std::memcmp(expected.data() + i * w, actual.data() + i * w, w) != 0)
      return typed::mismatch{static_cast<std::int64_t>(i), typed::format_scalar(typed::load_scalar(type, expected.data() + i * w)),
                             typed::format_scalar(typed::load_scalar(type, actual.data() + i * w))};
  return std::nullopt;
}

}  // namespace

dist_outcome reduce_distributed(launch& l, io::dtype type, typed::op_kind op, pipelines::source& in, void* result,
                                const stream_settings& s) {
  const std::int64_t n = in.size();
  const std::size_t w = io::dtype_size(type);
  l.run([&](const rank_context& c) {
    const slice sl = slice_of(c, n);
    const std::vector<std::byte> items = read_slice(c, in, sl, item_bytes::twice(w), s);
    std::vector<std::byte> total(w);
    typed::dist_reduce(c.r, type, op, items.data(), sl.count, total.data());
    if (c.rank == 0) std::memcpy(result, total.data(), w);
  });
  dist_outcome o;
  if (!s.verify) return o;
  l.on_root([&] {
    std::vector<std::byte> expected(w);
    o.cub = reduce_streamed(type, op, in, expected.data(), single_process(s)).verified;
    const std::vector<std::byte> input = read_all(in);
    if (const auto m = typed::reduce_mismatch(type, op, input.data(), n, expected.data(), result))
      differ(l, "reduce " + std::string(typed::op_name(op)), *m);
  });
  o.verified = true;
  return o;
}

dist_outcome scan_distributed(launch& l, const typed::scan_spec& spec, pipelines::source& in, shared_output& out,
                              const std::vector<std::int64_t>& shape, const stream_settings& s) {
  const std::int64_t n = in.size();
  const std::size_t w = io::dtype_size(spec.type);
  l.run([&](const rank_context& c) {
    const slice sl = slice_of(c, n);
    const std::vector<std::byte> items = read_slice(c, in, sl, item_bytes::twice(2 * w), s);
    std::vector<std::byte> scanned(items.size());
    typed::dist_scan(c.r, spec, items.data(), scanned.data(), sl.count);
    write_part(c, out, sl.begin, sl.count, scanned.data());
  });
  dist_outcome o;
  out.finish_writes();
  l.on_root([&] {
    if (s.verify) {
      std::vector<std::byte> expected(static_cast<std::size_t>(n) * w);
      pipelines::host_sink sink(expected.data(), w);
      o.cub = scan_streamed(spec, in, sink, single_process(s)).verified;
      const std::vector<std::byte> input = read_all(in), actual = read_back_all(out, n, w);
      if (const auto m = typed::first_scan_mismatch(spec, input.data(), expected.data(), actual.data(), n))
        differ(l, describe(spec) + " scan", *m);
    }
    out.commit(shape);
  });
  o.verified = s.verify;
  return o;
}

dist_outcome histogram_distributed(launch& l, const typed::histogram_spec& spec, pipelines::source& samples,
                                   void* counts, const stream_settings& s) {
  const std::int64_t n = samples.size();
  const std::size_t counts_bytes = static_cast<std::size_t>(spec.num_bins) * io::dtype_size(spec.counter);
  l.run([&](const rank_context& c) {
    const slice sl = slice_of(c, n);
    const std::vector<std::byte> items = read_slice(c, samples, sl, item_bytes::twice(io::dtype_size(spec.sample)), s);
    std::vector<std::byte> local(counts_bytes);
    typed::dist_histogram(c.r, spec, items.data(), sl.count, local.data());
    if (c.rank == 0) std::memcpy(counts, local.data(), counts_bytes);
  });
  dist_outcome o;
  if (!s.verify) return o;
  l.on_root([&] {
    std::vector<std::byte> expected(counts_bytes);
    o.cub = histogram_streamed(spec, samples, expected.data(), single_process(s)).verified;
    const std::vector<std::byte> actual(static_cast<const std::byte*>(counts), static_cast<const std::byte*>(counts) + counts_bytes);
    if (const auto m = first_difference(spec.counter, expected, actual)) differ(l, "histogram", *m);
  });
  o.verified = true;
  return o;
}

dist_outcome compact_distributed(launch& l, const typed::select_spec& spec, pipelines::source& values,
                                 pipelines::source* flags, shared_output& out, const stream_settings& s) {
  const std::int64_t n = values.size();
  const std::size_t w = io::dtype_size(spec.type);
  std::int64_t kept = 0;
  l.run([&](const rank_context& c) {
    const slice sl = slice_of(c, n);
    const std::size_t flag_bytes = flags != nullptr ? 1 : 0;
    const std::vector<std::byte> items = read_slice(c, values, sl, item_bytes::twice(2 * w + flag_bytes), s);
    std::vector<std::byte> flag_items;
    if (flags != nullptr) flag_items = read_slice(c, *flags, sl, {}, s);
    const typed::dist_kept k = typed::dist_select(
        c.r, spec, items.data(), flags != nullptr ? reinterpret_cast<const std::uint8_t*>(flag_items.data()) : nullptr, sl.count);
    write_part(c, out, k.first, k.count, k.items.data());
    if (c.rank == 0) kept = k.total;
  });
  dist_outcome o;
  o.kept = kept;
  out.finish_writes();
  l.on_root([&] {
    if (s.verify) {
      std::vector<std::byte> expected(static_cast<std::size_t>(n) * w);
      pipelines::host_sink sink(expected.data(), w);
      const streamed one = compact_streamed(spec, values, flags, sink, single_process(s));
      o.cub = one.verified;
      if (one.kept != kept)
        throw cli_error(exit_code::software, "verify compact " + describe(spec) + ": " + l.describe() + " kept " +
                                                 std::to_string(kept) + " values, the single-process run " +
                                                 std::to_string(one.kept));
      expected.resize(static_cast<std::size_t>(kept) * w);
      if (const auto m = first_difference(spec.type, expected, read_back_all(out, kept, w)))
        differ(l, "compact " + describe(spec), *m);
    }
    out.commit({kept});
  });
  o.verified = s.verify;
  return o;
}

dist_outcome sort_distributed(launch& l, const typed::sort_spec& spec, pipelines::source& keys, pipelines::source* values,
                              shared_output& keys_out, shared_output* values_out, io::dtype value_type,
                              const stream_settings& s, const std::filesystem::path& spill_directory) {
  const std::int64_t n = keys.size();
  const std::size_t kw = io::dtype_size(spec.key), vw = static_cast<std::size_t>(spec.value_bytes);
  std::int64_t moved = 0;
  l.run([&](const rank_context& c) {
    const slice sl = slice_of(c, n);
    // Its slice and its sorted share on the host; on the CPU backend also the uploaded slice, the slice
    // sorted, the runs received and the share merged, with the sort's 8-byte order.
    const std::vector<std::byte> key_items = read_slice(c, keys, sl, {2 * (kw + vw), 4 * (kw + vw) + 8}, s);
    std::vector<std::byte> value_items;
    if (values != nullptr) value_items = read_slice(c, *values, sl, {}, s);
    typed::dist_sorted sorted =
        typed::dist_sort(c.r, spec, key_items.data(), values != nullptr ? value_items.data() : nullptr, sl.count);
    write_part(c, keys_out, sorted.first, sorted.count, sorted.keys.data());
    if (values_out != nullptr) write_part(c, *values_out, sorted.first, sorted.count, sorted.values.data());
    if (c.rank == 0) moved = sorted.moved;
  });
  dist_outcome o;
  o.moved = moved;
  keys_out.finish_writes();
  if (values_out != nullptr) values_out->finish_writes();
  l.on_root([&] {
    if (s.verify) {
      std::vector<std::byte> expected(static_cast<std::size_t>(n) * kw), expected_values(static_cast<std::size_t>(n) * vw);
      pipelines::host_sink key_sink(expected.data(), kw), value_sink(expected_values.data(), vw == 0 ? 1 : vw);
      o.cub = sort_streamed(spec, keys, values, key_sink, values != nullptr ? &value_sink : nullptr, single_process(s),
                            spill_directory)
                  .verified;
      const std::string what = "sort " + describe(spec);
      if (const auto m = first_difference(spec.key, expected, read_back_all(keys_out, n, kw))) differ(l, what + " (keys)", *m);
      if (values_out != nullptr)
        if (const auto m = first_difference(value_type, expected_values, read_back_all(*values_out, n, vw)))
          differ(l, what + " (values)", *m);
    }
    keys_out.commit({n});
    if (values_out != nullptr) values_out->commit({n});
  });
  o.verified = s.verify;
  return o;
}

std::string input_signature(const array_file& f) {
  return std::string(io::dtype_name(f.type)) + io::shape_string(f.shape) + ";";
}

std::string describe_run(const launch& l, const dist_outcome& o, std::size_t item_bytes, bool sort) {
  std::string text = l.describe();
  if (sort)
    text += "; the exchange moved " + std::to_string(o.moved) + " items (" +
            byte_size_text(static_cast<std::size_t>(o.moved) * item_bytes) + ") between ranks";
  return text;
}

void print_checks(std::ostream& out, const launch& l, const dist_outcome& o, const std::string& what) {
  if (o.cub) out << verification_line(*o.cub, what) << "\n";
  if (o.verified) out << "verify " << what << ": " << l.describe() << " equal the single-process run\n";
}

}  // namespace lookback::cli
