// The chained look-back (tile/chained_lookback.cuh) on its own: chains side by side, tiles taking ids
// from an atomic counter and publishing after random waits, so that a look-back meets predecessors
// not ready, with an aggregate only, and with an inclusive prefix at every place of its window. Every
// tile's exclusive prefix of every chain is checked against the host's, for windows of 1, 2, 4 and 8.
#include "support/gpu_test.hpp"

#include <lookback/primitives/device_buffer.cuh>
#include <lookback/primitives/error.cuh>
#include <lookback/primitives/operators.cuh>
#include <lookback/primitives/stream.cuh>
#include <lookback/primitives/tile/chained_lookback.cuh>
#include <lookback/primitives/tile/tile_id.cuh>
#include <lookback/primitives/tile/tile_status.cuh>

#include <cstdint>
#include <vector>

namespace lookback::test {
namespace {

/// One block a tile, one thread a chain: waits, publishes the tile's value for the chain, waits
/// again, then looks back.
template <int Window>
__global__ void chain_prefixes_kernel(const unsigned* d_values, const unsigned* d_waits_ns, unsigned* d_prefixes,
                                      unsigned* d_tile_counter, tile::status_array<unsigned> chains) {
  __shared__ unsigned slot;
  const std::int64_t t = tile::acquire_tile(d_tile_counter, slot);
  const int chain = static_cast<int>(threadIdx.x);
  const int chain_count = static_cast<int>(blockDim.x);
  const std::int64_t at = t * chain_count + chain;
  const unsigned value = d_values[at];
  __nanosleep(d_waits_ns[at] & 0xffffu);
  tile::publish_chain_aggregate(chains, t, chain, chain_count, value);
  __nanosleep(d_waits_ns[at] >> 16);
  d_prefixes[at] = tile::chain_exclusive_prefix<0, Window>(chains, t, chain, chain_count, value, sum{}, 0u);
}

template <int Window>
void check_chains(int tiles, int chain_count, std::uint64_t salt) {
  auto rng = make_rng(salt);
  const std::size_t cells = static_cast<std::size_t>(tiles) * chain_count;
  std::vector<unsigned> values(cells);
  std::vector<unsigned> waits(cells);
  for (std::size_t i = 0; i < cells; ++i) {
    values[i] = static_cast<unsigned>(rng() % 1000);
    // Mostly none, sometimes long, before the aggregate and before the look-back.
    const auto wait = [&] { return rng() % 4 == 0 ? static_cast<unsigned>(rng() % 20000) : 0u; };
    waits[i] = wait() | (wait() << 16);
  }
  const cuda_stream stream;
  const auto d_values = to_device(values, stream);
  const auto d_waits = to_device(waits, stream);
  device_buffer<unsigned> d_prefixes(cells, stream);
  d_prefixes.fill_bytes(poison_byte);
  device_buffer<unsigned> d_counter(1, stream);
  d_counter.fill_bytes(0);
  device_buffer<unsigned char> d_status(tile::status_array<unsigned>::bytes_for(static_cast<std::int64_t>(cells)),
                                        stream);
  d_status.fill_bytes(0);
  chain_prefixes_kernel<Window><<<tiles, chain_count, 0, stream>>>(
      d_values.data(), d_waits.data(), d_prefixes.data(), d_counter.data(),
      tile::status_array<unsigned>(d_status.data(), static_cast<std::int64_t>(cells)));
  LOOKBACK_CUDA_TRY(cudaGetLastError());
  const auto prefixes = to_host(d_prefixes);
  std::vector<unsigned> running(chain_count, 0u);
  for (int t = 0; t < tiles; ++t)
    for (int c = 0; c < chain_count; ++c) {
      const std::size_t at = static_cast<std::size_t>(t) * chain_count + c;
      ASSERT_EQ(prefixes[at], running[c]) << "window " << Window << ", tile " << t << ", chain " << c;
      running[c] += values[at];
    }
}

class chained_lookback : public gpu_test {};

TEST_F(chained_lookback, every_window_gives_each_tile_the_sum_of_its_predecessors) {
  for (const int tiles : {1, 2, 3, 5, 4099}) {
    check_chains<1>(tiles, 64, 1000 + tiles);
    check_chains<2>(tiles, 64, 2000 + tiles);
    check_chains<4>(tiles, 96, 3000 + tiles);
    check_chains<8>(tiles, 32, 4000 + tiles);
  }
}

}  // namespace
}  // namespace lookback::test
