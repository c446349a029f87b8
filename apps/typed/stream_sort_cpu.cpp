// The CPU backend of the external sort (lookback/pipelines/sort/msd_sort.hpp): the same plan as the
// GPU's, each pass a loop over chunks in host memory and each bucket sorted by sort_cpu. Half the host
// budget goes to that work, the other half to a spill in host memory; a larger spill goes to a file.
#include "typed/sort_visit.hpp"
#include "typed/stream_ops.hpp"

#include <lookback/algorithms/radix_sort/key_bits.cuh>
#include <lookback/pipelines/sort/msd_sort.hpp>
#include <lookback/pipelines/stream_options.hpp>

#include <algorithm>
#include <cstring>
#include <vector>

#include <unistd.h>

namespace lookback::typed {
namespace {

/// The host budget without asking a device: given, or a quarter of physical memory.
std::size_t host_budget(const pipelines::stream_options& o) {
  if (o.limits.host_bytes != 0) return o.limits.host_bytes;
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) / 4 : std::size_t{1} << 30;
}

/// items [first, first + count) of `from`, where they lie in host memory or read into `buffer`.
const std::byte* items_of(pipelines::source& from, std::int64_t first, std::int64_t count, std::vector<std::byte>& buffer) {
  const std::size_t bytes = from.item_bytes();
  if (const auto* host = static_cast<const std::byte*>(from.host_items()))
    return host + static_cast<std::size_t>(first) * bytes;
  buffer.resize(static_cast<std::size_t>(count) * bytes);
  from.read(first, count, buffer.data());
  return buffer.data();
}

template <class Key, bool Descending>
class cpu_sort_backend {
 public:
  cpu_sort_backend(const sort_spec& spec, std::size_t budget) : spec_(spec), budget_(budget) {
    item_ = sizeof(Key) + static_cast<std::size_t>(spec.value_bytes);
    // sort_cpu holds the input, the output, a 64-bit field and an index per item, and std::stable_sort a
    // buffer of up to one index an item (half of one in libstdc++ 12; a whole one elsewhere).
    sort_item_ = 2 * item_ + sizeof(std::uint64_t) + 2 * sizeof(std::int64_t);
    // A scatter chunk: the items read, the items ordered by bucket, a bucket index each.
    chunk_ = std::max<std::int64_t>(1024, static_cast<std::int64_t>(std::min<std::size_t>(
                                              pipelines::default_max_chunk_bytes / item_,
                                              budget_ / 2 / (2 * item_ + sizeof(int)))));
  }

  bool fits_in_core(pipelines::source& keys, pipelines::source*, pipelines::sink&, pipelines::sink*) const {
    return static_cast<std::size_t>(keys.size()) * sort_item_ <= budget_;
  }

  std::int64_t bucket_items() const {
    const auto cap = static_cast<std::int64_t>(budget_ / 2 / sort_item_);
    if (cap < 1024)
      throw pipelines::stream_error(pipelines::stream_error::kind::budget,
                                    "the host memory limit is too small for the external sort's buckets of 1024 items: "
                                    "they need at least " +
                                        pipelines::size_text(2 * 1024 * sort_item_) + " (limit " +
                                        pipelines::size_text(budget_) + ")");
    return cap;
  }

  std::size_t host_reserve() const { return budget_ / 2; }

  pipelines::digit_stats count(pipelines::source& keys, const pipelines::digit_pass& pass) {
    pipelines::digit_stats stats;
    stats.counts.assign(std::size_t{1} << pass.width, 0);
    stats.min_field = ~std::uint64_t{0};
    const std::uint64_t field_mask = field_mask_of(pass);
    std::vector<std::byte> buffer;
    for (std::int64_t at = 0; at < keys.size(); at += chunk_) {
      const std::int64_t n = std::min(chunk_, keys.size() - at);
      const auto* k = reinterpret_cast<const Key*>(items_of(keys, at, n, buffer));
      for (std::int64_t i = 0; i < n; ++i) {
        const std::uint64_t bits = radix::ordered_bits<Key, Descending>(k[i]);
        ++stats.counts[(bits >> pass.shift) & ((std::uint64_t{1} << pass.width) - 1)];
        const std::uint64_t field = (bits >> pass.begin_bit) & field_mask;
        stats.min_field = std::min(stats.min_field, field);
        stats.max_field = std::max(stats.max_field, field);
      }
    }
    return stats;
  }

  void scatter(pipelines::source& keys, pipelines::source* values, const pipelines::digit_pass& pass,
               const std::vector<int>& bucket_of, std::vector<std::int64_t>& cursor,
               const std::vector<std::int64_t>& bucket_end, pipelines::sink& key_spill, pipelines::sink* value_spill) {
    const std::size_t vw = static_cast<std::size_t>(spec_.value_bytes);
    std::vector<std::byte> key_buffer, value_buffer, key_out, value_out;
    std::vector<std::int64_t> at_bucket(cursor.size());
    std::vector<int> bucket(static_cast<std::size_t>(std::min(chunk_, keys.size())));
    for (std::int64_t at = 0; at < keys.size(); at += chunk_) {
      const std::int64_t n = std::min(chunk_, keys.size() - at);
      const auto* k = reinterpret_cast<const Key*>(items_of(keys, at, n, key_buffer));
      const std::byte* v = values != nullptr ? items_of(*values, at, n, value_buffer) : nullptr;
      // A stable counting sort of the chunk by bucket.
      std::vector<std::int64_t> sizes(cursor.size() + 1, 0);
      for (std::int64_t i = 0; i < n; ++i) {
        const std::uint64_t bits = radix::ordered_bits<Key, Descending>(k[i]);
        bucket[static_cast<std::size_t>(i)] = bucket_of[(bits >> pass.shift) & ((std::uint64_t{1} << pass.width) - 1)];
        ++sizes[static_cast<std::size_t>(bucket[static_cast<std::size_t>(i)]) + 1];
      }
      for (std::size_t b = 1; b < sizes.size(); ++b) sizes[b] += sizes[b - 1];  // each bucket's start in the chunk
      std::copy(sizes.begin(), sizes.end() - 1, at_bucket.begin());
      key_out.resize(static_cast<std::size_t>(n) * sizeof(Key));
      value_out.resize(static_cast<std::size_t>(n) * vw);
      for (std::int64_t i = 0; i < n; ++i) {
        const auto to = static_cast<std::size_t>(at_bucket[static_cast<std::size_t>(bucket[static_cast<std::size_t>(i)])]++);
        std::memcpy(key_out.data() + to * sizeof(Key), k + i, sizeof(Key));
        if (v != nullptr) std::memcpy(value_out.data() + to * vw, v + static_cast<std::size_t>(i) * vw, vw);
      }
      for (std::size_t b = 0; b < cursor.size(); ++b) {
        const std::int64_t first = sizes[b], items = sizes[b + 1] - sizes[b];
        if (items == 0) continue;
        pipelines::check_run_fits(cursor, bucket_end, b, items);
        key_spill.write(cursor[b], items, key_out.data() + static_cast<std::size_t>(first) * sizeof(Key));
        if (v != nullptr) value_spill->write(cursor[b], items, value_out.data() + static_cast<std::size_t>(first) * vw);
        cursor[b] += items;
      }
    }
  }

  void sort_buckets(pipelines::source& keys, pipelines::source* values, pipelines::sink& keys_out,
                    pipelines::sink* values_out, const std::vector<pipelines::bucket_job>& jobs) {
    const std::size_t vw = static_cast<std::size_t>(spec_.value_bytes);
    std::vector<std::byte> key_buffer, value_buffer, key_sorted, value_sorted;
    for (const pipelines::bucket_job& j : jobs) {
      const std::byte* k = items_of(keys, j.first, j.count, key_buffer);
      const std::byte* v = values != nullptr ? items_of(*values, j.first, j.count, value_buffer) : nullptr;
      key_sorted.resize(static_cast<std::size_t>(j.count) * sizeof(Key));
      value_sorted.resize(static_cast<std::size_t>(j.count) * vw);
      sort_spec s = spec_;
      s.end_bit = j.end_bit;
      sort_cpu(s, k, key_sorted.data(), v, value_sorted.data(), j.count);
      keys_out.write(j.first, j.count, key_sorted.data());
      if (v != nullptr) values_out->write(j.first, j.count, value_sorted.data());
    }
  }

 private:
  static std::uint64_t field_mask_of(const pipelines::digit_pass& p) {
    const int bits = p.hi_bit - p.begin_bit;
    return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
  }

  sort_spec spec_;
  std::size_t budget_;
  std::size_t item_ = 0, sort_item_ = 0;
  std::int64_t chunk_ = 0;
};

}  // namespace

stream_outcome sort_stream_cpu(const sort_spec& spec, pipelines::source& keys, pipelines::source* values,
                               pipelines::sink& keys_out, pipelines::sink* values_out, const pipelines::stream_options& o,
                               const std::filesystem::path& spill_directory) {
  check_sort_spec(spec);
  stream_outcome outcome;
  pipelines::msd_settings settings;
  settings.begin_bit = spec.begin_bit;
  settings.end_bit = spec.end_bit;
  settings.key_bytes = io::dtype_size(spec.key);
  settings.value_bytes = static_cast<std::size_t>(spec.value_bytes);
  settings.host_budget = host_budget(o);
  settings.spill_directory = spill_directory;
  visit_sort_key(spec.key, [&](auto zero) {
    using Key = decltype(zero);
    const auto run = [&](auto backend) {
      outcome.sorted = pipelines::msd_sort<decltype(backend)>(backend, settings).run(keys, values, keys_out, values_out);
    };
    if (spec.descending)
      run(cpu_sort_backend<Key, true>(spec, settings.host_budget));
    else
      run(cpu_sort_backend<Key, false>(spec, settings.host_budget));
  });
  outcome.plan.items = keys.size();
  return outcome;
}

}  // namespace lookback::typed
