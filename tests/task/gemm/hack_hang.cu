// A kernel that never ends. Rejected as timeout; the child process is killed.
// cake-task: kernel=hack_hang grid=cdiv(N,64),cdiv(M,64) block=256 smem=0
#include <cuda_bf16.h>
#include <cuda_fp16.h>
__device__ volatile int neverSet;

extern "C" __global__ void hack_hang(const __nv_bfloat16 *__restrict__ A, const __nv_bfloat16 *__restrict__ B,
                                      __nv_bfloat16 *__restrict__ C, int M, int N, int K) {
  while (neverSet == 0) {} // a volatile global: the loop cannot be optimized away
  __shared__ float as[32][65], bs[32][65];
  int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  int m0 = blockIdx.y * 64, n0 = blockIdx.x * 64;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < K; k0 += 32) {
    for (int i = threadIdx.x; i < 64 * 32; i += 256) {
      int r = i / 32, kk = i % 32;
      as[kk][r] = (m0 + r < M && k0 + kk < K) ? __bfloat162float(A[size_t(m0 + r) * K + k0 + kk]) : 0.f;
      bs[kk][r] = (n0 + r < N && k0 + kk < K) ? __bfloat162float(B[size_t(n0 + r) * K + k0 + kk]) : 0.f;
    }
    __syncthreads();
    for (int kk = 0; kk < 32; ++kk)
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
          acc[i][j] += as[kk][ty * 4 + i] * bs[kk][tx * 4 + j];
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      int m = m0 + ty * 4 + i, n = n0 + tx * 4 + j;
      if (m < M && n < N)
        C[size_t(m) * N + n] = __float2bfloat16(acc[i][j]);
    }
}
