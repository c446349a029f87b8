#pragma once
// Hopper's bulk asynchronous copies between global and shared memory (cp.async.bulk, the TMA unit
// without a tensor map) and the shared-memory barriers (mbarrier) that count their bytes. One thread
// issues a copy of a whole tile; the data moves while every warp does other work, and whoever waits on
// the barrier then reads it. Only for code compiled for sm_90 or later: callers check
// detail::compiled_for_hopper before they launch a kernel that uses these.
#include <cstdint>

namespace lookback::thread {

/// Addresses and sizes of bulk copies are multiples of this.
inline constexpr int bulk_copy_alignment = 16;

__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

/// A barrier that completes a phase once `count` threads have arrived and every byte it expects has
/// landed; followed by a block barrier before any other thread uses it.
__device__ __forceinline__ void barrier_init(std::uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(count) : "memory");
}

/// Makes barrier_init's writes visible to the async proxy (the copies that complete on the barrier).
__device__ __forceinline__ void fence_barrier_init() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }

__device__ __forceinline__ void barrier_arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(bar)) : "memory");
}

/// Arrives and tells the barrier that `bytes` more will land in this phase.
__device__ __forceinline__ void barrier_arrive_expect_bytes(std::uint64_t* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)), "r"(bytes)
               : "memory");
}

/// Waits until the phase of parity `parity` has completed (acquire: the completing arrivals' writes and
/// the landed bytes are visible).
__device__ __forceinline__ void barrier_wait(std::uint64_t* bar, unsigned parity) {
  unsigned done = 0;
  do {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(shared_address(bar)), "r"(parity)
        : "memory");
  } while (!done);
}

/// Global to shared; `bytes`, both addresses 16-byte aligned; the bytes complete on `bar`.
__device__ __forceinline__ void bulk_load(void* dst_shared, const void* src_global, unsigned bytes, std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
          shared_address(dst_shared)),
      "l"(src_global), "r"(bytes), "r"(shared_address(bar))
      : "memory");
}

/// Makes this thread's ordinary shared-memory writes visible to bulk copies issued after a barrier.
__device__ __forceinline__ void fence_shared_for_bulk_copies() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

/// Shared to global, as one bulk group of the issuing thread (bulk_commit closes the group).
__device__ __forceinline__ void bulk_store(void* dst_global, const void* src_shared, unsigned bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst_global),
               "r"(shared_address(src_shared)), "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }

/// Waits until at most `Pending` of this thread's committed store groups still read shared memory.
template <int Pending>
__device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(Pending) : "memory");
}

/// Waits until every committed store group of this thread has completed.
__device__ __forceinline__ void bulk_wait_all() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }

/// Barrier `id` (1 to 15; 0 is __syncthreads) over `threads` threads, whole warps.
__device__ __forceinline__ void named_barrier(unsigned id, unsigned threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

#endif

}  // namespace lookback::thread
