// bar.cta-reach: in the last CTA, warps whose row is past R skip the branch and never arrive at
// barrier 0, so the warps inside it hang.

const D = 128

kernel row_norms(
  x: global bf16[R, D] align(16),
  out: global fp32[R],
) target(sm_90a) grid(math.cdiv(R, 8)) block(256) {
  var partial: shared fp32[8]
  role rows warps(0 .. 8) issue(warp) {
    let r = cta.id(0) * 8 + self.warp()
    // expected-note@+1:8 {{the branch condition}}
    if r < R {
      let v = math.cast(ld.global(x[r, :]), fp32)
      st.shared(reduce.sum(v * v, axis = 0), partial[self.warp()])
      // expected-error@+1:16-19 bar.cta-reach {{it is inside an 'if', so threads that skip the branch never arrive}}
      bar.sync(cta)
    }
    if r < R {
      st.global(ld.shared(partial[self.warp()]), out[r])
    }
  }
}
