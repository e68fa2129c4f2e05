// value.range near misses (issue #16): a dimension bound by a role's let (`let d = 1; cta.id(d)`)
// and a division in a branch a compile-time condition never takes are not errors.
const SPLIT = 0

kernel rows(out: global fp32[N]) target(sm_80) grid(math.cdiv(N, 256), 2) block(256) {
  role r warps(0 .. 8) issue(warp) {
    let d = 1
    let n = cta.id(0) * 8 + self.warp() + cta.id(d)
    if SPLIT > 0 {
      let m = n % SPLIT
      st.global(1.0, out[m])
    } else {
      if n < N {
        st.global(1.0, out[n])
      }
    }
  }
}
