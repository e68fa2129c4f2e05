// Generated CUDA as the lowering will emit it: #line directives name the IR.
#line 2 "k.cake"
extern "C" __global__ void scale(const float *x, float *out) {
#line 4 "k.cake"
  int i = blockIdx.x * 128 + threadIdx.x;
  float v = x[i];
#line 7 "k.cake"
  out[i] = v * "two";
#line 20 "missing.cake"
  int unused;
}
