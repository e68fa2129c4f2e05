// In a hidden folder: workspace/symbol does not read it (tests/lit/lsp/workspace-symbol.test).
kernel hidden_gemm(A: global bf16[M, K] align(16)) target(sm_90a) grid(1) block(128) {
  role compute warpgroups(0) issue(warpgroup) {
    let x = A.m
  }
}
