// Two kernels, one of them C++ (mangled), for tests/lit/runner/fake-driver.test.
extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
__global__ void spill(float* out, int n) {
  float acc[300];
  for (int i = 0; i < 300; ++i) acc[i] = out[(i * 7 + n) % 1024];
  float s = 0;
  for (int i = 0; i < n; ++i) s += acc[(i*13) % 300] * acc[(i * 31 + n) % 300];
  __shared__ float sh[256];
  sh[threadIdx.x] = s; __syncthreads();
  out[threadIdx.x] = sh[255 - threadIdx.x];
}
