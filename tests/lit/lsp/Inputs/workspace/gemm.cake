// A file of the workspace of tests/lit/lsp/workspace-symbol.test, not opened by it.
const BM = 128

kernel gemm_sm90_ws(A: global bf16[M, K] align(16)) target(sm_90a) grid(1) block(128) {
  role compute warpgroups(0) issue(warpgroup) {
    let x = A.m
  }
}
