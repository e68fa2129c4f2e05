// No guard at all: the last CTA's warps run past N when N is not a multiple of 8. There is no
// fix-it (which guard the author means is not known); the message names the guard that proves it.
kernel fill(
  out: global i32[N],
) target(sm_80) grid(math.cdiv(N, 8)) block(256) {
  role rows warps(0 .. 8) issue(warp) {
    let n = cta.id(0) * 8 + self.warp()
    if elect.one() {
      // expected-error@+1:24 bounds.global {{'st.global' of 'out[n]' can run out of bounds: index 100 of dimension }}
      st.global(0, out[n])
    }
  }
}
