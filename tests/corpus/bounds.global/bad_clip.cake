// The warp's 64 x 64 block of C crosses the tensor's edge when M or N is not a multiple of the
// tile, and the store is not clipped. The fix-it adds `clip = true`.
const BM = 128
const BN = 128

kernel store_tile(
  C: global bf16[M, N] align(16),
) target(sm_80) grid(math.cdiv(N, BN), math.cdiv(M, BM)) block(128) {
  let m0 = cta.id(1) * BM
  let n0 = cta.id(0) * BN
  role main warps(0 .. 4) issue(warp) {
    let wm = self.warp() / 2 * 64
    let wn = self.warp() % 2 * 64
    var acc: reg fp32[64, 64]
    acc = 0.0
    // expected-error@+1:48 bounds.global {{'st.global' of 'C[m0 + wm, n0 + wn]' can run out of bounds: elements 6}}
    st.global(math.cast(acc, bf16), C[m0 + wm, n0 + wn])
  }
}
