// A warpgroup's wgmma accumulates into `acc` and the kernel stores it right after the commit, before
// wgmma.wait_group: the registers may still be written (wgmma.inflight at the read). This one waits first.
#include <cstdint>

__device__ __forceinline__ void mma_m64n8k16(float (&d)[4], uint64_t da, uint64_t db) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "l"(da), "l"(db));
}
__device__ __forceinline__ void commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N> __device__ __forceinline__ void wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

__global__ void tile(float *out, uint64_t da, uint64_t db) {
  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  mma_m64n8k16(acc, da, db);
  commit();
  wait<0>();
  for (int i = 0; i < 4; ++i)
    out[threadIdx.x * 4 + i] = acc[i];
}
