// Rows of D columns (D a size, up to the tile width DP) read DP columns at a time: past D the
// load runs out of the tensor unless it is clipped (the columns past D read as zeros). The fix-it
// adds `clip = true` (the mutation gate's dropped clip of kernels/kmeans/assign_sm90.cake's norms).
const DP = 128

kernel row_norms(
  c: global bf16[K, D] align(16),
  cn: global fp32[K],
) target(sm_90a) grid(math.cdiv(K, 8)) block(256) {
  assume D % 8 == 0, D <= DP
  role rows warps(0 .. 8) issue(warp) {
    let r = cta.id(0) * 8 + self.warp()
    if r < K {
      // expected-error@+1:40 bounds.global {{'ld.global' of 'c[r, 0:DP]' can run out of bounds: elements 0 .. 127 of dimension 1}}
      let x = math.cast(ld.global(c[r, 0:DP]), fp32)
      st.global(reduce.sum(x * x, axis = 0), cn[r])
    }
  }
}
