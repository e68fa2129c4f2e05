// bar.uniform: in the last CTA, warps whose row is past R skip the branch and never arrive at
// barrier 0, so the warps inside it hang. The barrier is the branch's last statement: the fix
// moves it after the branch.

const D = 128

kernel row_norms(
  x: global bf16[R, D] align(16),
  out: global fp32[R],
) target(sm_90a) grid(math.cdiv(R, 8)) block(256) {
  var partial: shared fp32[8]
  role rows warps(0 .. 8) issue(warp) {
    let r = cta.id(0) * 8 + self.warp()
    // expected-note@+1:8 {{this condition differs between warps}}
    if r < R {
      let v = math.cast(ld.global(x[r, :]), fp32)
      st.shared(reduce.sum(v * v, axis = 0), partial[self.warp()])
      // expected-error@+1:7-20 bar.uniform {{'bar.sync(cta)' is not reached by every thread it counts: the condition differs between warps}}
      bar.sync(cta)
    }
    if r < R {
      st.global(ld.shared(partial[self.warp()]), out[r])
    }
  }
}
