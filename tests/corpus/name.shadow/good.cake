// The near miss: the inner value gets its own name.
kernel rows(x: global fp32[N, 128] align(16), y: global fp32[N, 128] align(16)) target(sm_90a) block(128) {
  assume N % 4 == 0
  role main warps(0 .. 4) issue(warp) {
    let r = cta.id(0) * 4 + self.warp()
    if r < N {
      let next = r + 1
      st.global(ld.global(x[next, :]), y[next, :])
    }
  }
}
