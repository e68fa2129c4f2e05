// syntax.number: an integer that does not fit in 64 bits read as "unknown", so this dimension
// checked clean (issue #16); so did an infinite float.
// expected-error@+1:30-49 syntax.number {{the number '9223372036854775808' does not fit in 64 bits}}
kernel rows(out: global fp32[9223372036854775808]) target(sm_80) grid(1) block(256) {
  role r warps(0 .. 8) issue(warp) {
    let n = cta.id(0) * 8 + self.warp()
    if n < 5 {
      st.global(1.0, out[n])
    }
  }
}
