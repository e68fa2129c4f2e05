kernel k(A: global bf16[M, K] align(16)) target(sm_90a) blok(128) {
  role main warps(0 .. 4) {
    tma.lod(A[0, 0], A)
  }
}
