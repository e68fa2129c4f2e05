// A host function that calls a __device__ function: a genuine error, and the signature of Clang 19's loss of
// host overloads in a CUDA PCH, so the file is parsed whole from then on (the same report with the cache as
// without). Its kernel prints from the device, which the PCH parse once could not (printf lost).
#include <cstdio>
#include <cstdint>

__device__ int twice(int x) { return 2 * x; }

__global__ void __launch_bounds__(32) report(int *out) {
  printf("lane %d\n", int(threadIdx.x));
  out[threadIdx.x] = twice(int(threadIdx.x));
}

int host_side() { return twice(3); }
