// A consumer warp writes its results to a shared buffer, every lane a value, and lane 0 alone arrives on the
// mbarrier the next stage waits on. The arrive releases lane 0's writes only: the waiting side may read the other
// 31 lanes' values before they land (bar.race at the arrive). This one syncs the warp first.
#include <cstdint>

__device__ __forceinline__ uint32_t lane_id() {
  uint32_t l;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(l));
  return l;
}
__device__ __forceinline__ void arrive(uint64_t *bar) {
  uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(bar));
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(a) : "memory");
}

__global__ void hand_off(const float *in, uint64_t *bars) {
  __shared__ float staged[32];
  __shared__ uint64_t ready;
  staged[lane_id()] = in[threadIdx.x] * 2.0f;
  __syncwarp();
  if (lane_id() == 0) {
    arrive(&ready);
  }
}
