// A row offset recomputed inside a branch hides the role's own: the store
// below the branch then uses the outer value, not the one just computed.
kernel rows(x: global fp32[N, 128] align(16), y: global fp32[N, 128] align(16)) target(sm_90a) block(128) {
  assume N % 4 == 0
  role main warps(0 .. 4) issue(warp) {
    let r = cta.id(0) * 4 + self.warp()
    if r < N {
      // expected-warning@+1:11 name.shadow {{'r' hides a declaration of an enclosing scope}}
      let r = r + 1
      st.global(ld.global(x[r, :]), y[r, :])
    }
    // expected-note@-6:9 {{the hidden declaration}}
  }
}
