// A kernel that prints from the device, checked on top of its precompiled preamble: Clang 19 kept only the host
// printf of the two the PCH declares, and the device call found no candidate (ThunderKittens' print helpers).
#include <cstdio>

__global__ void __launch_bounds__(32) hello(int *out) {
  printf("lane %d\n", int(threadIdx.x));
  out[threadIdx.x] = int(threadIdx.x);
}
