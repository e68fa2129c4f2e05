// A kernel that writes one id of many. The stand-in driver runs nothing, so every candidate that still runs
// reports run.unwritten: what the reduction keeps is what the run needs (the parameters the workload binds).
kernel tiny(
  x: global bf16[B, N, D] align(16),
  c: global bf16[B, K, D] align(16),
  ids: global i32[B, N],
) target(sm_80) grid(1) block(32) {
  role main warps(0 .. 1) issue(warp) {
    let a = 1
    let b = 2
    // the one store
    st.global(a + b, ids[0, 0])
  }
}
