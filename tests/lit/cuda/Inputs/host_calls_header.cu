// host_calls_device.cu's host call of a __device__ function, and a header template (inc/faulty.cuh, found
// through -I inc) whose instantiation fails: the parse on the PCH and the whole parse agree once the header's
// two names (absolute, relative) are taken as one, so the errors are remembered (.faithful) and the next check
// takes the parse on the PCH.
#include <cstdio>
#include "faulty.cuh"

__device__ int twice(int x) { return 2 * x; }

__global__ void __launch_bounds__(32) report(int *out) { out[threadIdx.x] = twice(int(threadIdx.x)); }

int host_side() { return twice(3) + broken<int>(); }
