// bar.uniform: the warpgroup barrier between the st.matrix and the TMA store was moved into the
// `if elect.one()` below it: only the elected thread arrives, and the barrier's other 127 threads
// never do. The fix moves it back before the branch.

kernel stage_out(
  X: global bf16[M, 64] align(16),
  Y: global bf16[M, 64] align(16),
) target(sm_90a) grid(math.cdiv(M, 64)) block(128) {
  var stage: shared bf16[64, 64] swizzle(128B)
  role io warpgroups(0) issue(warpgroup) {
    var acc: reg fp32[64, 64]
    acc = ld.global(X[cta.id(0) * 64, 0], like = acc, clip = true)
    st.matrix(math.cast(acc, bf16), stage)
    fence.proxy_async(stage)
    // expected-note@+1:8 {{elect.one() is true on one thread}}
    if elect.one() {
      // expected-error@+1:7-26 bar.uniform {{only the elected thread runs this branch}}
      bar.sync(warpgroup)
      tma.store(stage, Y[cta.id(0) * 64, 0])
      tma.store_wait(0)
    }
  }
}
