// A primitive used on a target that lacks it must not compile: the header
// exposes each family only where the target has it (the runtime.absent.*
// tests expect nvcc's "has no member" error for the one call selected by -D).
#include "cake_device.cuh"

__global__ void k_absent(unsigned* out) {
#if defined(CAKE_RT_TEST_WGMMA)
  cake::rt::wgmma_fence();
#elif defined(CAKE_RT_TEST_TCGEN05)
  cake::rt::tcgen05_wait_ld();
#elif defined(CAKE_RT_TEST_TMA)
  cake::rt::bulk_commit_group();
#elif defined(CAKE_RT_TEST_SETMAXNREG)
  cake::rt::setmaxnreg_inc<240>();
#elif defined(CAKE_RT_TEST_STMATRIX)
  const unsigned r[1] = {out[0]};
  cake::rt::stmatrix_x1(0, r);
#endif
  out[0] = 0;
}
