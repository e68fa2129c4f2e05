// A kernel template defined in a header beside the file that launches it (as FlashKDA's are): checked per
// instantiation the file makes, its findings located here. The TMA store is never waited (tma.store-wait);
// header_kernel_fixed.cuh waits for it.
#pragma once
#include <cstdint>

template <int Rows>
__global__ void __launch_bounds__(128) store_rows(const __grid_constant__ uint64_t map, const float *in) {
  __shared__ __align__(128) float tile[Rows * 32];
  tile[threadIdx.x] = in[threadIdx.x];
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];"
                 :: "l"(&map), "r"(static_cast<uint32_t>(__cvta_generic_to_shared(tile))), "r"(0), "r"(Rows)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
}
