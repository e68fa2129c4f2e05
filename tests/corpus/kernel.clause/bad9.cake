// kernel.clause: grid(1e29) checked clean (issue #16): a grid counts CTAs in integers.
// expected-error@+1:53 kernel.clause {{grid(...) counts CTAs: '1e29' is not an integer}}
kernel rows(out: global fp32[N]) target(sm_80) grid(1e29) block(256) {
  role r warps(0 .. 8) issue(warp) {
    let n = cta.id(0) * 8 + self.warp()
    if n < N {
      st.global(1.0, out[n])
    }
  }
}
