// out[r] = scale * sum(x[r, :]^2), one warp per row.
// bad: the output is indexed with parentheses, as in Fortran or MATLAB.
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
      // expected-error@+1:54-57 op.unknown {{'out' is a value, not an operation}}
      st.global(reduce.sum(v * v, axis = 0) * scale, out(r))
    }
  }
}
