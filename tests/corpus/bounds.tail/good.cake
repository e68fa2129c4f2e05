// Near misses: the same row read DP columns at a time, with the fact D <= DP stated (the launcher
// refuses a longer row), and a row read in a loop along it (every column reached at any D).
const DP = 128

kernel row_norms(
  c: global bf16[K, D] align(16),
  cn: global fp32[K],
) target(sm_90a) grid(math.cdiv(K, 8)) block(256) {
  assume D % 8 == 0, D <= DP
  role rows warps(0 .. 8) issue(warp) {
    let r = cta.id(0) * 8 + self.warp()
    if r < K {
      let x = math.cast(ld.global(c[r, 0:DP], clip = true), fp32)
      st.global(reduce.sum(x * x, axis = 0), cn[r])
    }
  }
}

kernel row_sums(
  c: global fp32[K, D] align(16),
  cs: global fp32[K],
) target(sm_90a) grid(math.cdiv(K, 8)) block(256) {
  assume D % 32 == 0
  role rows warps(0 .. 8) issue(warp) {
    let r = cta.id(0) * 8 + self.warp()
    if r < K {
      var s: reg fp32 = 0.0
      for j in 0 .. D / 32 {
        s = s + reduce.sum(ld.global(c[r, j * 32:j * 32 + 32]), axis = 0)
      }
      st.global(s, cs[r])
    }
  }
}
