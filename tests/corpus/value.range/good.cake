// value.range near miss: a size bound at launch, cta.id(1), and a 64 x 256 fp32 accumulator held by a
// warpgroup (64 KiB over 128 threads) are all in range.
kernel tile(out: global fp32[N]) target(sm_90a) grid(1, 2) block(128) {
  role r warpgroups(0) issue(warpgroup) {
    var acc: reg fp32[64, 256]
    acc = 0.0
    let n = cta.id(1) * 8
    if n < N {
      st.global(1.0, out[n])
    }
  }
}
