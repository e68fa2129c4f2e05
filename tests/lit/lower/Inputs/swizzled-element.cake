// Regression (found in this session's review of the KDA prep): a single element read from or written to a swizzled shared tile must go through the swizzle the tile was written with;
// the lowering used the unswizzled address (ld.shared(lm[t, i]) of an fp32 [64, 64] swizzle(128B) tile).
const C = 64

kernel swizzled_elements(
  a: global fp32[NB, C, C] align(16),
  o: global fp32[NB, C] align(16),
  x: global bf16[NB, C, C] align(16),
  y: global fp32[NB, C, C] align(16),
) target(sm_90a) grid(NB) block(128) {
  let n = cta.id(0)
  ring inq stages(1) producer(w) consumer(w) {
    lm: shared fp32[C, C] swizzle(128B)
    xs: shared bf16[C, C] swizzle(128B)
  }
  role w warpgroups(0) issue(warpgroup) {
    let p = inq.produce()
    if elect.one() {
      tma.load(a[n, 0:C, 0:32], p.lm[:, 0:32])
      tma.load(a[n, 0:C, 32:64], p.lm[:, 32:64])
      tma.load(x[n, :, :], p.xs)
    }
    inq.commit(p)
    let s = inq.consume()
    let t = self.thread()
    if t < C {
      st.global(ld.shared(s.lm[t, 5]), o[n, t])
      st.shared(1.0, s.lm[t, 6])
    }
    // a cols vector of a row of the swizzled tile, like a wgmma accumulator
    bar.sync(warpgroup)
    var acc: reg fp32[64, 64]
    wgmma.mma(s.xs, s.xs, acc, shape = m64n64k16, accumulate = false)
    wgmma.commit()
    wgmma.wait(0)
    st.global(acc * ld.shared(s.lm[3, :], like = acc, axis = 1), y[n, :, :])
    inq.release(s)
  }
}
