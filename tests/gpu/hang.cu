// tests/gpu/cake_run.sh: a kernel that never ends (the flag is never set).
extern "C" __global__ void hang(volatile int *flag) {
  while (*flag == 0) {
  }
}
