// ring.roles: bad_producer_units.cake's loop in a role of one warpgroup: one elected thread loads the slot and
// one commit arrives a stage, as the full barrier takes it.
kernel one_warpgroup_producer(
  A: global bf16[M, 64] align(16),
  C: global fp32[M, 64],
) target(sm_90a) grid(math.cdiv(M, 128)) block(128) {
  let m0 = cta.id(0) * 128
  ring as stages(2) producer(compute) consumer(compute) {
    a: shared bf16[128, 64] swizzle(128B)
  }
  role compute warpgroups(0) issue(warpgroup) {
    let p = as.produce()
    if elect.one() {
      tma.load(A[m0, 0], p.a)
    }
    as.commit(p)
    let s = as.consume()
    let v = ld.shared(s.a[0:64, :])
    as.release(s)
    st.global(math.cast(v, fp32), C[m0, 0], clip = true)
  }
}
