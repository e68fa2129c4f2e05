// kernel.clause: block(128.0) is not an integer (it used to check clean and crash the lowering,
// issue #16); a cluster dimension of 0 is not one either.
// expected-error@+2:37 kernel.clause {{block(n) takes one positive compile-time integer}}
// expected-error@+1:73 kernel.clause {{cluster(x, y, z) takes positive compile-time integers}}
kernel k(x: global fp32[N]) grid(1) block(128.0) target(sm_90a) cluster(0) {
  role r warps(0 .. 4) issue(warp) {
    if self.lane() < N {
      st.global(1.0, x[self.lane()])
    }
  }
}
