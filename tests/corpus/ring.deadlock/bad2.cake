// ring.deadlock: a same-role ring consumed before anything was produced into it.
const BM = 128
const BK = 32

kernel rowsum(
  A: global bf16[M, K] align(16),
  out: global fp32[M],
) target(sm_80) grid(math.cdiv(M, BM)) block(128) {
  assume K % 8 == 0
  let KT = math.cdiv(K, BK)
  let m0 = cta.id(0) * BM

  ring as stages(2) producer(main) consumer(main) {
    a: shared bf16[BM, BK]
  }

  role main warps(0 .. 4) issue(warp) {
    var total: reg fp32[32] per(thread)
    total = 0.0
    for k in 0 .. KT {
      // expected-error@+1:15-27 ring.deadlock {{role 'main' waits in as.consume() for a slot that only its own later commit fills}}
      let s = as.consume()
      total += math.cast(ld.shared(s.a[self.warp() * 32 + self.lane(), 0:32]), fp32)
      as.release(s)
      let p = as.produce()
      cp.async(A[m0, k * BK], p.a, by = main, clip = true)
      // expected-note@+1 {{the commit that would unblock it comes later in the same role}}
      as.commit(p)
    }
    st.global(reduce.sum(total, axis = 0), out[m0 + self.warp() * 32 + self.lane()], clip = true)
  }
}
