// A TMA store of a shared tile to global memory, committed as a bulk group and never waited: the kernel exits
// while the store may still read the shared memory it releases (tma.store-wait). This one waits.
#include <cstdint>

__device__ __forceinline__ void tma_store_2d(const void *map, uint32_t smem, int x, int y) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
               :: "l"(map), "r"(smem), "r"(x), "r"(y) : "memory");
}

__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;"); }
__device__ __forceinline__ void bulk_wait_read0() { asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory"); }

__global__ void store_tile(const __grid_constant__ uint64_t map, float *scratch) {
  __shared__ __align__(128) float tile[32 * 32];
  tile[threadIdx.x] = scratch[threadIdx.x];
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  if (threadIdx.x == 0) {
    tma_store_2d(&map, static_cast<uint32_t>(__cvta_generic_to_shared(tile)), 0, blockIdx.x * 32);
    bulk_commit();
    bulk_wait_read0();
  }
}
