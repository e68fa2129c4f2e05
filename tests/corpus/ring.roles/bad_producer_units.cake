// ring.roles: one role of two warpgroups both produces and consumes a TMA ring. Each warpgroup's elected
// thread loads the slot and commits it, so every stage gets two commits while its full barrier takes one:
// the second arrives in the next phase (found by the warp-specialize tactic's base,
// tests/lit/cli/Inputs/warp-specialize). No fix-it: the producer is a role of its own (the tactic), or one
// warpgroup. good_producer_units.cake is the same loop in a role of one warpgroup.
kernel two_warpgroup_producer(
  A: global bf16[M, 64] align(16),
  C: global fp32[M, 64],
) target(sm_90a) grid(math.cdiv(M, 128)) block(256) {
  let m0 = cta.id(0) * 128
  ring as stages(2) producer(compute) consumer(compute) {
    a: shared bf16[128, 64] swizzle(128B)
  }
  // expected-note@+1:16 {{role 'compute' is 2 warpgroups, each issuing the produce on its own}}
  role compute warpgroups(0 .. 2) issue(warpgroup) {
    let r0 = self.warpgroup() * 64
    let p = as.produce()
    if elect.one() {
      tma.load(A[m0, 0], p.a)
    }
    // expected-error@+1:5 ring.roles {{role 'compute' commits ring 'as' once per warpgroup (2 commits a stage)}}
    as.commit(p)
    let s = as.consume()
    let v = ld.shared(s.a[r0:r0 + 64, :])
    as.release(s)
    st.global(math.cast(v, fp32), C[m0 + r0, 0], clip = true)
  }
}
