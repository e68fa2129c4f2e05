// A file in a folder of the workspace of tests/lit/lsp/workspace-symbol.test.
param KB: int in {64, 128} = 128

kernel knn_topk(A: global bf16[M, K] align(16)) target(sm_90a) grid(1) block(128) {
  role compute warpgroups(0) issue(warpgroup) {
    let x = A.m
  }
}
