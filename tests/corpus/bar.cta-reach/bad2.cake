// bar.cta-reach: the chain role is one warpgroup; its barrier 0 also waits for the load role,
// which never reaches it. The role's barrier is its warpgroup's: the fix scopes it so.

kernel chain_step(
  A: global bf16[T, 64, 64] align(16),
  out: global fp32[T, 64, 64] align(16),
) target(sm_90a) grid(1) block(256) {
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

  role chain warpgroups(1) regs(232) issue(warpgroup) {
    var state: reg fp32[64, 64]
    state = 0.0
    for i in 0 .. T {
      let s = as.consume()
      bar.sync(warpgroup)
      st.matrix(math.cast(state, bf16), ss)
      fence.proxy_async(ss)
      // expected-error@+1:16-19 bar.cta-reach {{'bar.sync(cta)' deadlocks: the kernel has 2 roles and barrier 0 counts every thread of the CTA, but only role 'chain' reaches this one}}
      bar.sync(cta)
      wgmma.mma(s.a, ss, state, shape = m64n64k16)
      wgmma.commit()
      wgmma.wait(0)
      as.release(s)
      st.global(state, out[i, :, :])
    }
  }
}
