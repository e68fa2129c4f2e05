#include <cstdint>

__device__ __forceinline__ void mbar_init(uint64_t *bar, uint32_t count) {
  uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(a), "r"(count));
}

__device__ __forceinline__ void mbar_wait(uint64_t *bar, uint32_t parity) {
  uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  asm volatile("{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra W;\n}" :: "r"(a), "r"(parity));
}

__global__ void k(float *out) {
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) {
    mbar_init(&bar, 1);
#ifndef SKIP_FENCE
    asm volatile("fence.mbarrier_init.release.cluster;");
#endif
  }
  __syncthreads();
  mbar_wait(&bar, 0);
  out[threadIdx.x] = 1.0f;
}
