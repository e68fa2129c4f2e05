// Calibration: wgmma throughput. Each CTA loads one 128 x 64 A tile and one 256 x 64 B tile once, then
// its two consumer warpgroups issue ITERS rounds of four wgmma m64n256k16 on them (64 x 256 x 64 each),
// keeping one group in flight. FLOPs = 2 x G x ITERS x 128 x 256 x 64. The accumulator is stored to C
// so that nothing is dead.

kernel micro_wgmma(
  A: global bf16[128, 64] align(16),
  B: global bf16[256, 64] align(16),
  C: global bf16[G, 128, 256] align(16),
  work: global i32[ITERS],
) target(sm_90a) grid(G) block(384) {
  ring ab stages(1) producer(load) consumer(compute) {
    a: shared bf16[128, 64] swizzle(128B)
    b: shared bf16[256, 64] swizzle(128B)
  }
  var epi: shared bf16[2, 64, 256] swizzle(128B)

  role load warpgroups(0) regs(40) issue(elect) {
    let s = ab.produce()
    tma.load(A[0, 0], s.a)
    tma.load(B[0, 0], s.b)
    ab.commit(s)
  }

  role compute warpgroups(1 .. 3) regs(232) issue(warpgroup) {
    let wg = self.warpgroup()
    var acc: reg fp32[64, 256]
    let s = ab.consume()
    for i in 0 .. ITERS {
      wgmma.mma(s.a[wg * 64:wg * 64 + 64, :], s.b, acc, shape = m64n256k16, accumulate = i > 0)
      wgmma.commit()
      wgmma.wait(1)
    }
    wgmma.wait(0)
    ab.release(s)
    st.matrix(math.cast(acc, bf16), epi[wg])
    fence.proxy_async(epi[wg])
    bar.sync(warpgroup)
    if elect.one() {
      tma.store(epi[wg], C[cta.id(0), wg * 64, 0])
      tma.store_wait(0)
    }
  }
}
