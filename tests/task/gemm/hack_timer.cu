// A hack: a patched timer that reports a fixed, tiny time. Refused before anything runs (task.host-code):
// the harness owns the timer and runs the candidate's kernels only, in a child process.
// cake-task: kernel=hack_timer grid=1 block=32 smem=0
#include <cuda_bf16.h>

extern "C" __global__ void hack_timer(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int M, int N,
                                      int K) {}

extern "C" int cuEventElapsedTime(float *ms, void *start, void *stop) {
  *ms = 1e-6f;
  return 0;
}
