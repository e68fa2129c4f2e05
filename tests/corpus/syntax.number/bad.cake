// out[r] = 1 / sqrt(scale * sum(x[r, :]^2) + eps), one warp per row.
// bad: the epsilon has a stray second fraction.
const D = 128

kernel row_sumsq(
  x: global fp32[R, D] align(16),
  out: global fp32[R],
  scale: param fp32,
) target(sm_90a) grid(math.cdiv(R, 8)) block(256) {
  role rows warps(0 .. 8) issue(warp) {
    let r = cta.id(0) * 8 + self.warp()
    if r < R {
      let v = ld.global(x[r, :])
      // expected-error@+1:66-72 syntax.number {{malformed number '1e-6.0'}}
      st.global(math.rsqrt(reduce.sum(v * v, axis = 0) * scale + 1e-6.0), out[r])
    }
  }
}
