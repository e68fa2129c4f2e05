kernel clean(x: global fp32[N]) target(sm_90a) block(128) {
  role main warps(0 .. 4) {
    let i = 1
  }
}
