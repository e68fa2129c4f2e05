// kernel.clause: unroll(2147483647) asks for two billion copies of the loop body (the lowering grew
// past 5.5 GB, issue #16): at most 64.
kernel k(x: global fp32[N]) target(sm_90a) grid(1) block(32) {
  assume N >= 32
  role r warps(0 .. 1) issue(warp) {
    // expected-error@+1:28 kernel.clause {{unroll(n) takes a compile-time integer from 1 to 64}}
    for i in 0 .. 4 unroll(2147483647) {
      st.global(1.0, x[self.lane()])
    }
  }
}
