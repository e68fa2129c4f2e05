// role.issue: warp.ballot is warp-collective, but issue(elect) runs the body on one lane only.
// The role issues nothing that needs a single thread, so the fix makes it issue(warp).

kernel flags(x: global i32[R], out: global u32[R]) target(sm_90a) grid(math.cdiv(R, 32)) block(32) {
  // expected-note@+1:23 {{the role's issue unit is declared here}}
  role lanes warps(0) issue(elect) {
    let r = cta.id(0) * 32 + self.lane()
    let v = ld.global(x[r], clip = true)
    // expected-error@+1:13-24 role.issue {{'warp.ballot' is warp-collective, but role 'lanes' runs its body on one thread}}
    let m = warp.ballot(v > 0)
    st.global(m, out[r], clip = true)
  }
}
