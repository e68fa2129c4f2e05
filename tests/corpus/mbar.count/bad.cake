// One elected thread arrives on done[0] per phase, but it waits for two arrivals: hang.
const BM = 64
const D = 128

kernel copy_rows(
  X: global bf16[M, D] align(16),
  W: global bf16[M, D] align(16),
  Y: global bf16[M, D],
) target(sm_90a) grid(math.cdiv(M, BM)) block(160) {
  let m0 = cta.id(0) * BM
  var ready: shared mbarrier[1] count(1)
  // expected-error@+1:38 mbar.count {{'done' is initialized with count(2) but 1 arrival reaches}}
  var done: shared mbarrier[1] count(2)
  var xt: shared bf16[BM, D] swizzle(128B)

  role load warps(4) issue(elect) {
    mbarrier.arrive_expect_tx(ready[0], bytes = tile.bytes(xt))
    tma.load(X[m0, 0], xt, barrier = ready[0])
    mbarrier.wait(done[0], parity = 0)
  }

  role compute warpgroups(0) issue(warpgroup) {
    mbarrier.wait(ready[0], parity = 0)
    let x = ld.shared(xt)
    if elect.one() {
      // expected-note@+1:7 {{arrives 1 time per phase (one elected thread per warpgroup}}
      mbarrier.arrive(done[0])
    }
    st.global(x, Y[m0, 0], clip = true)
  }
}
