// bar.cta-reach: two consumer warpgroups share one staging tile; barrier 0 also counts the load
// role, which never arrives. Whether the two warpgroups must meet (the tile is shared) or each
// one alone depends on the schedule, so both readings are offered and neither is applied.

kernel chain_step(
  A: global bf16[T, 64, 64] align(16),
  out: global fp32[T, 128, 64] align(16),
) target(sm_90a) grid(1) block(384) {
  ring as stages(2) producer(load) consumer(chain) {
    a: shared bf16[64, 64] swizzle(128B)
  }
  var ss: shared bf16[64, 64] swizzle(128B)

  role load warpgroups(0) regs(40) issue(elect) {
    for i in 0 .. T {
      let p = as.produce()
      tma.load(A[i, :, :], p.a)
      as.commit(p)
    }
  }

  role chain warpgroups(1 .. 3) regs(232) issue(warpgroup) {
    let r0 = self.warpgroup() * 64
    var acc: reg fp32[64, 64]
    for i in 0 .. T {
      let s = as.consume()
      bar.sync(chain)
      if self.warpgroup() == 0 {
        st.matrix(math.cast(ld.shared(s.a, like = acc), bf16), ss)
      }
      fence.proxy_async(ss)
      // expected-error@+1:16-19 bar.cta-reach {{whether its warpgroups or the whole role must meet depends on what it protects}}
      bar.sync(cta)
      wgmma.mma(s.a, ss, acc, shape = m64n64k16, accumulate = false)
      wgmma.commit()
      wgmma.wait(0)
      fence.proxy_async(s.a)
      as.release(s)
      st.global(acc, out[i, r0:r0 + 64, :])
    }
  }
}
