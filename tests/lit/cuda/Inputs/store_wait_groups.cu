// cp.async.bulk.wait_group(.read) N waits for every committed bulk group but the N most recent. Kernel `drain_one`
// double-buffers its output and ends with wait_group.read 1: its last store may still read shared memory at exit
// (the emitted CUDA of an IR `tma.store_wait(1)` at a kernel's end). Kernel `never_committed` waits without
// committing: the wait covers no group of its store (tma.store-wait, both).
#include <cstdint>

__device__ __forceinline__ void tma_store_2d(const void *map, uint32_t smem, int x, int y) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
               :: "l"(map), "r"(smem), "r"(x), "r"(y) : "memory");
}

__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;"); }
template <int N> __device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" :: "n"(N) : "memory");
}

__global__ void __launch_bounds__(128) drain_one(const __grid_constant__ uint64_t map, float *scratch) {
  __shared__ __align__(128) float tile[2][32 * 32];
  for (int j = 0; j < 4; ++j) {
    if (threadIdx.x == 0)
      bulk_wait_read<1>();
    __syncthreads();
    tile[j % 2][threadIdx.x] = scratch[j * 128 + threadIdx.x];
    asm volatile("fence.proxy.async.shared::cta;");
    __syncthreads();
    if (threadIdx.x == 0) {
      tma_store_2d(&map, static_cast<uint32_t>(__cvta_generic_to_shared(tile[j % 2])), j * 32, blockIdx.x * 32);
      bulk_commit();
    }
  }
  if (threadIdx.x == 0)
    bulk_wait_read<1>();
}

__global__ void __launch_bounds__(128) never_committed(const __grid_constant__ uint64_t map, float *scratch) {
  __shared__ __align__(128) float tile[32 * 32];
  tile[threadIdx.x] = scratch[threadIdx.x];
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  if (threadIdx.x == 0) {
    tma_store_2d(&map, static_cast<uint32_t>(__cvta_generic_to_shared(tile)), 0, blockIdx.x * 32);
    bulk_wait_read<0>();
  }
}
