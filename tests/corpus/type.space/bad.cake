// out[r] = scale * sum(x[r, :]^2), one warp per row.
// bad: a scalar parameter without 'param'.
const D = 128

kernel row_sumsq(
  x: global fp32[R, D] align(16),
  out: global fp32[R],
  // expected-error@+1:10-14 type.space {{parameter 'scale' must be a 'global' tensor or a 'param' scalar}}
  scale: fp32,
) target(sm_90a) grid(math.cdiv(R, 8)) block(256) {
  role rows warps(0 .. 8) issue(warp) {
    let r = cta.id(0) * 8 + self.warp()
    if r < R {
      let v = ld.global(x[r, :])
      st.global(reduce.sum(v * v, axis = 0) * scale, out[r])
    }
  }
}
