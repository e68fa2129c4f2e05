// The TMA copy delivers 64 x 128 bf16 = 16384 bytes, not 8192: the wait returns early.
const BM = 64
const D = 128

kernel copy_rows(
  X: global bf16[M, D] align(16),
  W: global bf16[M, D] align(16),
  Y: global bf16[M, D],
) target(sm_90a) grid(math.cdiv(M, BM)) block(160) {
  let m0 = cta.id(0) * BM
  var ready: shared mbarrier[1] count(1)
  var done: shared mbarrier[1] count(1)
  var xt: shared bf16[BM, D] swizzle(128B)

  role load warps(4) issue(elect) {
    // expected-error@+1:49 mbar.expect-tx {{'ready[0]' expects 8192 bytes but the TMA copies that}}
    mbarrier.arrive_expect_tx(ready[0], bytes = 8192)
    // expected-note@+1:5 {{this copy delivers 16384 bytes}}
    tma.load(X[m0, 0], xt, barrier = ready[0])
    mbarrier.wait(done[0], parity = 0)
  }

  role compute warpgroups(0) issue(warpgroup) {
    mbarrier.wait(ready[0], parity = 0)
    let x = ld.shared(xt)
    if elect.one() {
      mbarrier.arrive(done[0])
    }
    st.global(x, Y[m0, 0], clip = true)
  }
}
