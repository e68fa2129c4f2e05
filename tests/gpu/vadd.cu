// tests/gpu/cake_run.sh: cake run vadd.cu --arg buf:f32:N=iota --arg buf:f32:N=1 --arg buf:f32:N --arg i32:N
extern "C" __global__ void vadd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}
