// A kernel that spills under --maxrregcount=32, and setmaxnreg that ptxas drops under -G.
__global__ void sp(float *out, const float *in, int n) {
  float v[64];
#pragma unroll
  for (int i = 0; i < 64; ++i)
    v[i] = in[i * n + threadIdx.x];
  float s = 0;
  for (int j = 0; j < n; ++j) {
#pragma unroll
    for (int i = 0; i < 64; ++i)
      s += v[i] * v[(i + 1) % 64] * (float)j;
  }
  out[threadIdx.x] = s;
}

__global__ void __launch_bounds__(384, 1) ws(float *out) {
  if (threadIdx.x < 128) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
    out[threadIdx.x] = 1;
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    out[threadIdx.x] = 2;
  }
}
