// TMA boxes of DP columns at column 0 of x[N, D], with no loop along D: the MMA sees only the
// first DP columns of a longer row. The fix-it appends D <= DP (the tile's declared width) to the
// kernel's assume, which the launcher checks.
const DP = 64
const BM = 64
const BN = 64

kernel rows_mma(
  // expected-note@+1:21 {{'x' declares dimension 1 here}}
  x: global bf16[N, D] align(16),
  w: global bf16[BN, DP] align(16),
  y: global fp32[N, BN],
) target(sm_90a) grid(math.cdiv(N, BM)) block(256) {
  // expected-error@+1:10 bounds.tail {{the facts about D ('D % 8 == 0') do not bound it by DP, but every access to}}
  assume D % 8 == 0
  ring ab stages(2) producer(load) consumer(compute) {
    a: shared bf16[BM, DP] swizzle(128B)
    b: shared bf16[BN, DP] swizzle(128B)
  }

  role load warpgroups(0) issue(elect) {
    let s = ab.produce()
    // expected-note@+1:32 {{the access reaching furthest, elements 0 .. }}
    tma.load(x[cta.id(0) * BM, 0], s.a)
    tma.load(w[0, 0], s.b)
    ab.commit(s)
  }

  role compute warpgroups(1) issue(warpgroup) {
    var acc: reg fp32[BM, BN]
    let s = ab.consume()
    wgmma.mma(s.a, s.b, acc, shape = m64n64k16, accumulate = false)
    wgmma.commit()
    wgmma.wait(0)
    ab.release(s)
    st.global(acc, y[cta.id(0) * BM, 0], clip = true)
  }
}
