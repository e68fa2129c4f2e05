// An index that uses a `param` scalar: launches bind it from the sizes (the pass of a repeated launch),
// and any value may come, 0 too. At PASS = 0 the warp's 32 entries run past a list of K < 32 (the KNN
// merge's store without its clip; before, an index with a param scalar was never checked).
kernel write_pass(
  src: global fp32[Q, 32],
  dst: global fp32[Q, K],
  PASS: param i32,
) target(sm_90a) grid(math.cdiv(Q, 8)) block(256) {
  role rows warps(0 .. 8) issue(warp) {
    let r = cta.id(0) * 8 + self.warp()
    if r < Q {
      let v = ld.global(src[r, 0:32])
      // expected-error@+1:27 bounds.global {{'st.global' of 'dst[r, PASS * 32]' can run out of bounds}}
      st.global(v, dst[r, PASS * 32])
    }
  }
}
