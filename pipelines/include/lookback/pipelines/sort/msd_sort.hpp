#pragma once
// The external sort's plan, the same for every backend (the GPU's in sort/gpu_sort_backend.cuh, the
// command's CPU reference): when the input fits one in-core sort, that is all. Otherwise a streamed pass
// counts one digit (up to 12 bits, the top of the keys' bit range), the digits are grouped in order
// into buckets that each fit one in-core sort, a second streamed pass scatters the keys (and values)
// into their buckets in a spill area, and each bucket is sorted in-core on the bits below the ones
// its keys share, and written at its offset of the output. A digit that alone exceeds a bucket (skewed
// keys) is split again on the next bits; a part whose keys are equal on every bit left is copied
// through, already in stable order. Chunks go through the scatter in input order and each chunk's
// split is stable, so equal keys keep their input order: the result is the in-core sort's, bit for bit.
//
// A backend provides:
//   bool fits_in_core(source& keys, source* values, sink& keys_out, sink* values_out);  // asked first
//   std::int64_t bucket_items();             // the largest bucket one in-core sort may take
//   std::size_t host_reserve();              // host memory the backend itself takes while spilling
//   digit_stats count(source& keys, const digit_pass& pass);
//   void scatter(source& keys, source* values, const digit_pass& pass, const std::vector<int>& bucket_of_digit,
//                std::vector<std::int64_t>& cursor, const std::vector<std::int64_t>& bucket_end,
//                sink& keys_spill, sink* values_spill);  // check_run_fits before each write
//   void sort_buckets(source& keys, source* values, sink& keys_out, sink* values_out,
//                     const std::vector<bucket_job>& jobs);
#include <lookback/pipelines/chunk_plan.hpp>
#include <lookback/pipelines/sink.hpp>
#include <lookback/pipelines/source.hpp>
#include <lookback/pipelines/spill_store.hpp>
#include <lookback/pipelines/stream_error.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace lookback::pipelines {

enum class spill_kind { none, host, file };

/// What an external sort did, for the command's summary and the caller's logs.
struct sort_report {
  bool external = false;
  std::int64_t buckets = 0;       // sorted in-core (1 when the whole input was), or copied through
  std::int64_t copied = 0;        // of those, copied through: keys equal on every bit left
  int passes = 0;                 // partition levels: 1, more when a bucket was split again
  spill_kind spill = spill_kind::none;  // the first level's; a file when any level spilled to one
  std::int64_t bucket_items = 0;  // the most one in-core sort took
};

/// "in-core", "external: 40 buckets, 1 pass, spill in host memory"
inline std::string describe(const sort_report& r) {
  if (!r.external) return "in-core";
  return "external: " + std::to_string(r.buckets) + (r.buckets == 1 ? " bucket, " : " buckets, ") +
         std::to_string(r.passes) + (r.passes == 1 ? " pass" : " passes") + ", spill in " +
         (r.spill == spill_kind::file ? "file" : "host memory");
}

/// Throws before bucket b's run of `items` is written past the end the counting pass gave the bucket:
/// the input changed between its two reads (a file rewritten meanwhile). After the writes, the check
/// would come too late for an output or spill in host memory.
inline void check_run_fits(const std::vector<std::int64_t>& cursor, const std::vector<std::int64_t>& bucket_end,
                           std::size_t b, std::int64_t items) {
  if (cursor[b] + items > bucket_end[b])
    throw stream_error(stream_error::kind::device,
                       "external sort: bucket " + std::to_string(b) +
                           " receives more items than the histogram counted (did the input change between reads?)");
}

/// Whether n items of `out_item_bytes` in a sink in host memory lie apart from the n items of a source
/// there (or either is elsewhere). Each side spans its own item size: keys and values may differ.
inline bool host_apart(const source* in, const sink* out, std::int64_t n, std::size_t out_item_bytes) {
  if (in == nullptr || out == nullptr || in->host_items() == nullptr || out->host_items() == nullptr) return true;
  const auto a = reinterpret_cast<std::uintptr_t>(in->host_items());
  const auto b = reinterpret_cast<std::uintptr_t>(out->host_items());
  const auto in_bytes = static_cast<std::uintptr_t>(n) * in->item_bytes();
  const auto out_bytes = static_cast<std::uintptr_t>(n) * out_item_bytes;
  return a + in_bytes <= b || b + out_bytes <= a;
}

/// One counting (and scattering) pass: the digit is bits [shift, shift + width); every key of the part
/// it runs over shares the bits from hi_bit up.
struct digit_pass {
  int shift = 0;
  int width = 0;
  int begin_bit = 0;
  int hi_bit = 0;
};

struct digit_stats {
  std::vector<std::uint64_t> counts;  // 1 << width
  std::uint64_t min_field = 0;        // the smallest and largest bits [begin_bit, hi_bit)
  std::uint64_t max_field = 0;
};

/// Items [first, first + count) of the spill (or input), sorted on bits [begin_bit, end_bit) into the
/// same items of the output.
struct bucket_job {
  std::int64_t first = 0;
  std::int64_t count = 0;
  int end_bit = 0;
};

struct msd_settings {
  int begin_bit = 0;
  int end_bit = 0;
  std::size_t key_bytes = 0;
  std::size_t value_bytes = 0;  // 0: keys only
  std::size_t host_budget = 0;  // the spill goes to host memory while it fits here
  std::filesystem::path spill_directory;
  int digit_bits = 12;
};

namespace detail {

/// Copies items [0, count) of `from` to `to` through host memory (a part with nothing left to sort).
inline void copy_items(source& from, sink& to, std::int64_t count) {
  const std::size_t bytes = from.item_bytes();
  const auto* src = static_cast<const std::byte*>(from.host_items());
  auto* dst = static_cast<std::byte*>(to.host_items());
  if (src != nullptr && src == dst) return;  // a bucket of the output spilled into itself
  if (src != nullptr) return to.write(0, count, src);
  const std::int64_t piece = std::max<std::int64_t>(1, (std::int64_t{16} << 20) / static_cast<std::int64_t>(bytes));
  std::unique_ptr<std::byte[]> buffer;
  if (dst == nullptr) buffer.reset(new std::byte[static_cast<std::size_t>(std::min(piece, count)) * bytes]);
  for (std::int64_t at = 0; at < count; at += piece) {
    const std::int64_t n = std::min(piece, count - at);
    if (dst != nullptr) {
      from.read(at, n, dst + static_cast<std::size_t>(at) * bytes);
    } else {
      from.read(at, n, buffer.get());
      to.write(at, n, buffer.get());
    }
  }
}

inline int bit_length(std::uint64_t x) {
  int bits = 0;
  while (x != 0) x >>= 1, ++bits;
  return bits;
}

}  // namespace detail

template <class Backend>
class msd_sort {
 public:
  msd_sort(Backend& backend, const msd_settings& settings) : be_(backend), s_(settings) {}

  sort_report run(source& keys, source* values, sink& keys_out, sink* values_out) {
    const std::int64_t n = keys.size();
    if (values != nullptr && values->size() != n)
      throw stream_error(stream_error::kind::read, "the values number " + std::to_string(values->size()) +
                                                       ", the keys " + std::to_string(n));
    if (be_.fits_in_core(keys, values, keys_out, values_out)) {
      if (n > 0) be_.sort_buckets(keys, values, keys_out, values_out, {{0, n, s_.end_bit}});
      report_.buckets = 1;
      report_.bucket_items = n;
      return report_;
    }
    report_.external = true;
    cap_ = be_.bucket_items();
    part(keys, values, keys_out, values_out, n, s_.end_bit, 1, true);
    return report_;
  }

 private:
  /// Sorts the n items of keys (values) into keys_out (values_out); every key shares the bits from hi up.
  void part(source& keys, source* values, sink& keys_out, sink* values_out, std::int64_t n, int hi, int level,
            bool top) {
    report_.passes = std::max(report_.passes, level);
    digit_pass pass = pass_below(hi);
    digit_stats stats = be_.count(keys, pass);
    if (stats.min_field == stats.max_field) return copy_through(keys, values, keys_out, values_out, n);
    if (std::count_if(stats.counts.begin(), stats.counts.end(), [](std::uint64_t c) { return c != 0; }) == 1) {
      // One digit holds every key: split below the highest bit on which they differ instead.
      pass = pass_below(s_.begin_bit + detail::bit_length(stats.min_field ^ stats.max_field));
      stats = be_.count(keys, pass);
    }

    // Digits in order into buckets of at most cap_ items; a digit larger than that is a bucket alone.
    // Each bucket sorts on the bits below those all its keys share.
    std::vector<int> bucket_of(stats.counts.size());
    std::vector<bucket_job> buckets;
    std::int64_t at = 0;
    for (std::size_t d = 0; d < stats.counts.size(); ++d) {
      const auto c = static_cast<std::int64_t>(stats.counts[d]);
      const bool open = !buckets.empty() && buckets.back().count + c <= cap_ && buckets.back().count <= cap_;
      if (!open && (c > 0 || buckets.empty())) buckets.push_back({at, 0, pass.hi_bit});
      buckets.back().count += c;
      bucket_of[d] = static_cast<int>(buckets.size()) - 1;
      at += c;
    }

    // The output spills into itself when it lies in host memory apart from the input (over it, the
    // scatter would overwrite chunks not yet read); else host memory while every spill held at once
    // fits the host budget beside the backend's own; else a file.
    const bool into_output =
        top && keys_out.host_items() != nullptr && (values_out == nullptr || values_out->host_items() != nullptr) &&
        host_apart(&keys, &keys_out, n, s_.key_bytes) && host_apart(values, &keys_out, n, s_.key_bytes) &&
        host_apart(&keys, values_out, n, s_.value_bytes) && host_apart(values, values_out, n, s_.value_bytes);
    const std::size_t held_before = host_held_;
    const std::size_t spill_bytes = static_cast<std::size_t>(n) * item_bytes();
    const bool in_host = host_held_ + spill_bytes + be_.host_reserve() <= s_.host_budget;
    if (in_host && !into_output) host_held_ += spill_bytes;
    const std::unique_ptr<spill_store> key_store = into_output ? nullptr : make_store(n, s_.key_bytes, in_host);
    const std::unique_ptr<spill_store> value_store =
        values == nullptr || into_output ? nullptr : make_store(n, s_.value_bytes, in_host);
    if (key_store != nullptr && !key_store->in_host())
      report_.spill = spill_kind::file;
    else if (top)
      report_.spill = spill_kind::host;
    sink& key_spill = key_store != nullptr ? key_store->as_sink() : keys_out;
    sink* value_spill = values == nullptr ? nullptr : value_store != nullptr ? &value_store->as_sink() : values_out;

    std::vector<std::int64_t> cursor(buckets.size()), bucket_end(buckets.size());
    for (std::size_t b = 0; b < buckets.size(); ++b) {
      cursor[b] = buckets[b].first;
      bucket_end[b] = buckets[b].first + buckets[b].count;
    }
    be_.scatter(keys, values, pass, bucket_of, cursor, bucket_end, key_spill, value_spill);
    for (std::size_t b = 0; b < buckets.size(); ++b)
      if (cursor[b] != buckets[b].first + buckets[b].count)
        throw stream_error(stream_error::kind::device,
                           "external sort: bucket " + std::to_string(b) + " received " +
                               std::to_string(cursor[b] - buckets[b].first) + " items, the histogram counted " +
                               std::to_string(buckets[b].count));

    // The spilled items, read back through views of the output when it is its own spill.
    std::unique_ptr<source> key_back, value_back;
    if (key_store == nullptr) key_back = std::make_unique<host_source>(keys_out.host_items(), n, s_.key_bytes);
    if (values != nullptr && value_store == nullptr)
      value_back = std::make_unique<host_source>(values_out->host_items(), n, s_.value_bytes);
    source& key_in = key_store != nullptr ? key_store->as_source() : *key_back;
    source* value_in = values == nullptr ? nullptr : value_store != nullptr ? &value_store->as_source() : value_back.get();

    std::vector<bucket_job> jobs;
    std::copy_if(buckets.begin(), buckets.end(), std::back_inserter(jobs),
                 [&](const bucket_job& b) { return b.count > 0 && b.count <= cap_; });
    report_.buckets += static_cast<std::int64_t>(jobs.size());
    for (const bucket_job& j : jobs) report_.bucket_items = std::max(report_.bucket_items, j.count);
    be_.sort_buckets(key_in, value_in, keys_out, values_out, jobs);
    for (const bucket_job& b : buckets) {
      if (b.count <= cap_) continue;
      source_range k(key_in, b.first, b.count);
      sink_range ko(keys_out, b.first, s_.key_bytes);
      std::unique_ptr<source_range> v;
      std::unique_ptr<sink_range> vo;
      if (values != nullptr) {
        v = std::make_unique<source_range>(*value_in, b.first, b.count);
        vo = std::make_unique<sink_range>(*values_out, b.first, s_.value_bytes);
      }
      if (pass.shift == s_.begin_bit)
        copy_through(k, v.get(), ko, vo.get(), b.count);
      else
        part(k, v.get(), ko, vo.get(), b.count, pass.shift, level + 1, false);
    }
    host_held_ = held_before;
  }

  void copy_through(source& keys, source* values, sink& keys_out, sink* values_out, std::int64_t n) {
    detail::copy_items(keys, keys_out, n);
    if (values != nullptr) detail::copy_items(*values, *values_out, n);
    ++report_.buckets;
    ++report_.copied;
  }

  digit_pass pass_below(int hi) const {
    const int width = std::min(s_.digit_bits, hi - s_.begin_bit);
    return {hi - width, width, s_.begin_bit, hi};
  }
  std::size_t item_bytes() const { return s_.key_bytes + s_.value_bytes; }

  std::unique_ptr<spill_store> make_store(std::int64_t n, std::size_t bytes, bool in_host) const {
    return in_host ? spill_store::in_host_memory(n, bytes) : spill_store::in_file(s_.spill_directory, n, bytes);
  }

  Backend& be_;
  msd_settings s_;
  sort_report report_;
  std::int64_t cap_ = 0;
  std::size_t host_held_ = 0;
};

}  // namespace lookback::pipelines
