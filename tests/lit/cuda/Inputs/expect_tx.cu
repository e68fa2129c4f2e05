// The bytes an expect-tx announces against the bulk copies that complete on the barrier (mbar.expect-tx):
// short_count announces 1024 bytes and copies 768 (the phase never completes); tensor_copy's bytes are the
// host tensor map's box (a note: not decided).
#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void *p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void mbar_init(uint64_t *bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem(bar)));
  asm volatile("fence.mbarrier_init.release.cluster;");
}
__device__ __forceinline__ void expect_tx(uint64_t *bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(smem(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void bulk_load(void *dst, const void *src, uint32_t bytes, uint64_t *bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               :: "r"(smem(dst)), "l"(src), "r"(bytes), "r"(smem(bar)) : "memory");
}
__device__ __forceinline__ void tma_load_2d(void *dst, const void *map, int x, int y, uint64_t *bar) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
               :: "r"(smem(dst)), "l"(map), "r"(x), "r"(y), "r"(smem(bar)) : "memory");
}
__device__ __forceinline__ void wait(uint64_t *bar) {
  asm volatile("{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n @!p bra W;\n}" :: "r"(smem(bar)));
}

__global__ void __launch_bounds__(128) short_count(const float *a, const float *b, float *out) {
  __shared__ __align__(128) float tile[256];
  __shared__ uint64_t bar;
  if (threadIdx.x == 0)
    mbar_init(&bar);
  __syncthreads();
  if (threadIdx.x == 0) {
    expect_tx(&bar, 1024);
    bulk_load(tile, a, 512, &bar);
    bulk_load(tile + 128, b, 256, &bar);
  }
  wait(&bar);
  out[threadIdx.x] = tile[threadIdx.x];
}

__global__ void __launch_bounds__(128) tensor_copy(const __grid_constant__ uint64_t map, float *out) {
  __shared__ __align__(128) float tile[256];
  __shared__ uint64_t bar;
  if (threadIdx.x == 0)
    mbar_init(&bar);
  __syncthreads();
  if (threadIdx.x == 0) {
    expect_tx(&bar, 1024);
    tma_load_2d(tile, &map, 0, 0, &bar);
  }
  wait(&bar);
  out[threadIdx.x] = tile[threadIdx.x];
}
