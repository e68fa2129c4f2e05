// bar.cta-reach near miss: one role, and the CTA barrier sits outside the branches, so every
// thread of the CTA reaches it.

const D = 128

kernel row_norms(
  x: global bf16[R, D] align(16),
  out: global fp32[R],
) target(sm_90a) grid(math.cdiv(R, 8)) block(256) {
  var partial: shared fp32[8]
  role rows warps(0 .. 8) issue(warp) {
    let r = cta.id(0) * 8 + self.warp()
    if r < R {
      let v = math.cast(ld.global(x[r, :]), fp32)
      st.shared(reduce.sum(v * v, axis = 0), partial[self.warp()])
    }
    bar.sync(cta)
    if r < R {
      st.global(ld.shared(partial[self.warp()]), out[r])
    }
  }
}
