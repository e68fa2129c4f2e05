// A var that no statement before the store assigns still holds its initial value on the first
// iteration: the first store writes the rows past the end of ids, and it is not clipped.
const BM = 64

kernel stores(
  ids: global i32[N],
) target(sm_80) grid(1) block(128) {
  role main warps(0 .. 4) issue(warp) {
    var best: reg i32[16]
    best = 0
    var pm: i32 = math.cdiv(N, BM)
    for t in 0 .. math.cdiv(N, BM) {
      // expected-error@+1:27 bounds.global {{'st.global' of 'ids[pm * BM + self.warp() * 16]' can run out of bounds}}
      st.global(best, ids[pm * BM + self.warp() * 16])
      pm = t
    }
  }
}
