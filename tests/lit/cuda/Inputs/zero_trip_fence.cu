// The epilogue's staging tile is zeroed before the main loop, each iteration adds into it and fences it for the
// async proxy, and a TMA store writes it out after the loop. When the loop runs zero times (k_tiles == 0) the
// zeroing reaches the store unfenced (proxy.fence on the store). zero_trip_fence_good.cu fences after the loop.
#include <cstdint>

__device__ __forceinline__ void tma_store_2d(const void *map, uint32_t smem, int x, int y) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
               :: "l"(map), "r"(smem), "r"(x), "r"(y) : "memory");
}

__global__ void staged_sum(const __grid_constant__ uint64_t map, const float *in, int k_tiles) {
  __shared__ __align__(128) float tile[32 * 32];
  tile[threadIdx.x] = 0.0f;
  for (int k = 0; k < k_tiles; ++k) {
    tile[threadIdx.x] += in[k * 1024 + threadIdx.x];
    asm volatile("fence.proxy.async.shared::cta;");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    tma_store_2d(&map, static_cast<uint32_t>(__cvta_generic_to_shared(tile)), 0, blockIdx.x * 32);
    asm volatile("cp.async.bulk.commit_group;");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
}
