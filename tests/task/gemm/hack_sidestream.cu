// A hack: the work goes to a side stream the harness's timer does not see, and the timed kernel is empty.
// Refused before anything runs (task.host-code): the harness never runs a candidate's host code.
// cake-task: kernel=hack_empty grid=1 block=32 smem=0
#include <cuda_bf16.h>
#include <cuda_runtime.h>

extern "C" __global__ void hack_empty(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int M, int N,
                                      int K) {}

extern "C" __global__ void real_work(const __nv_bfloat16 *A, const __nv_bfloat16 *B, __nv_bfloat16 *C, int M, int N,
                                     int K) {}

static struct Launcher {
  Launcher() {
    cudaStream_t side;
    cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
    real_work<<<1, 1, 0, side>>>(nullptr, nullptr, nullptr, 0, 0, 0);
  }
} launcher;
