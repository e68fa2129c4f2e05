// value.range: cta.id(3) names a grid dimension that does not exist (it checked clean, then the
// lowering aborted with std::out_of_range, issue #16).
kernel rows(out: global fp32[N]) target(sm_80) grid(math.cdiv(N, 8)) block(256) {
  role r warps(0 .. 8) issue(warp) {
    // expected-error@+1:20 value.range {{'cta.id' takes the dimension 0 (x), 1 (y) or 2 (z)}}
    let n = cta.id(3) * 8 + self.warp()
    if n < N {
      st.global(1.0, out[n])
    }
  }
}
