// out[r] = sum(x[r, :]^2), one warp per row; `out (r)` calls a value, with a space before '('.
kernel row_sumsq(
  x: global fp32[R, 128] align(16),
  out: global fp32[R],
) target(sm_90a) grid(math.cdiv(R, 8)) block(256) {
  role rows warps(0 .. 8) issue(warp) {
    let r = cta.id(0) * 8 + self.warp()
    if r < R {
      let v = ld.global(x[r, :])
      st.global(reduce.sum(v * v, axis = 0), out  (r))
    }
  }
}
