// bar.cta-reach: each compute warpgroup stages its own 64 rows (stage[r0:r0 + 64, :], r0 from
// self.warpgroup()) for its TMA store; barrier 0 also waits for the load role, which never
// arrives. Only the warpgroup's threads share those rows: the fix scopes the barrier to it.

kernel stage_rows(
  A: global bf16[T, 64, 64] align(16),
  Y: global bf16[M, 64] align(16),
) target(sm_90a) grid(1) block(384) {
  ring as stages(2) producer(load) consumer(comp) {
    a: shared bf16[64, 64] swizzle(128B)
  }
  var stage: shared bf16[128, 64] swizzle(128B)
  role load warpgroups(0) regs(40) issue(elect) {
    for i in 0 .. T {
      let p = as.produce()
      tma.load(A[i, :, :], p.a)
      as.commit(p)
    }
  }
  role comp warpgroups(1 .. 3) regs(232) issue(warpgroup) {
    let r0 = self.warpgroup() * 64
    var acc: reg fp32[64, 64]
    for i in 0 .. T {
      let s = as.consume()
      acc = ld.shared(s.a, like = acc)
      fence.proxy_async(s.a)
      as.release(s)
      if elect.one() {
        tma.store_wait(0)
      }
      bar.sync(warpgroup)
      st.matrix(math.cast(acc, bf16), stage[r0:r0 + 64, :])
      fence.proxy_async(stage[r0:r0 + 64, :])
      // expected-error@+1:16-19 bar.cta-reach {{only role 'comp' reaches this one}}
      bar.sync(cta)
      if elect.one() {
        tma.store(stage[r0:r0 + 64, :], Y[i * 128 + r0, 0])
      }
    }
    if elect.one() {
      tma.store_wait(0)
    }
  }
}
