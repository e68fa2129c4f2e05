// A TMA store issued by thread 0 of each warpgroup and waited by the same threads under the same condition:
// the path that took the first branch takes the second (clean). In wrong_thread the wait is another thread's:
// the storing thread exits with its store in flight (tma.store-wait).
#include <cstdint>

__device__ __forceinline__ void tma_store_2d(const void *map, uint32_t smem, int x, int y) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
               :: "l"(map), "r"(smem), "r"(x), "r"(y) : "memory");
}
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;"); }
__device__ __forceinline__ void bulk_wait_read0() { asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory"); }

__global__ void __launch_bounds__(256) same_thread(const __grid_constant__ uint64_t map, const float *in) {
  __shared__ __align__(128) float tile[256];
  tile[threadIdx.x] = in[threadIdx.x];
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  const int lane_in_group = threadIdx.x % 128;
  if (lane_in_group == 0) {
    tma_store_2d(&map, static_cast<uint32_t>(__cvta_generic_to_shared(tile + threadIdx.x)), 0, threadIdx.x);
    bulk_commit();
  }
  for (int k = 0; k < 4; ++k)
    __syncwarp();
  if (lane_in_group == 0)
    bulk_wait_read0();
}

__global__ void __launch_bounds__(256) wrong_thread(const __grid_constant__ uint64_t map, const float *in) {
  __shared__ __align__(128) float tile[256];
  tile[threadIdx.x] = in[threadIdx.x];
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  if (threadIdx.x % 128 == 0) {
    tma_store_2d(&map, static_cast<uint32_t>(__cvta_generic_to_shared(tile + threadIdx.x)), 0, threadIdx.x);
    bulk_commit();
  }
  if (threadIdx.x % 128 == 1)
    bulk_wait_read0();
}
