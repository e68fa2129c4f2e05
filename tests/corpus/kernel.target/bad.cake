// out[r] = scale * sum(x[r, :]^2), one warp per row.
// bad: no target(...) clause.
const D = 128

// expected-error@+1:8-17 kernel.target {{kernel 'row_sumsq' has no target(...)}}
kernel row_sumsq(
  x: global fp32[R, D] align(16),
  out: global fp32[R],
  scale: param fp32,
) grid(math.cdiv(R, 8)) block(256) {
  role rows warps(0 .. 8) issue(warp) {
    let r = cta.id(0) * 8 + self.warp()
    if r < R {
      let v = ld.global(x[r, :])
      st.global(reduce.sum(v * v, axis = 0) * scale, out[r])
    }
  }
}
