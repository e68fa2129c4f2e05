// value.range: grid(4294967296, 70000) checked clean (issue #16), and the launch would fail with
// CUDA_ERROR_INVALID_VALUE: grid x takes at most 2^31 - 1 CTAs, y and z at most 65535.
// expected-error@+2:53 value.range {{grid dimension x is 4294967296; it must be from 1 to 2147483647 CTAs}}
// expected-error@+1:65 value.range {{grid dimension y is 70000; it must be from 1 to 65535 CTAs}}
kernel rows(out: global fp32[N]) target(sm_80) grid(4294967296, 70000) block(256) {
  role r warps(0 .. 8) issue(warp) {
    let n = cta.id(0) * 8 + self.warp()
    if n < N {
      st.global(1.0, out[n])
    }
  }
}
