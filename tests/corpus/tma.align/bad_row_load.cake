// A warp reads rows of c 128 columns at a time (8-byte vectors per lane: ld.global's lowering);
// the facts about D leave the row stride D x 2 B not provably a multiple of 8 B. The fix-it adds
// the missing divisibility to the kernel's assume (the launcher checks it).
const DP = 128

kernel row_norms(
  // expected-note@+1:21 {{'c' has a row stride of D elements}}
  c: global bf16[K, D] align(16),
  cn: global fp32[K],
) target(sm_90a) grid(math.cdiv(K, 8)) block(256) {
  // expected-error@+1:10 tma.align {{the facts about D ('D <= DP') leave the row stride of 'c' (D x 2 B) not provably a multiple of 8 B: ld.global reads its rows in 8-byte vectors}}
  assume D <= DP
  role rows warps(0 .. 8) issue(warp) {
    let r = cta.id(0) * 8 + self.warp()
    if r < K {
      // expected-note@+1:25 {{'c' is accessed by ld.global here}}
      let x = math.cast(ld.global(c[r, 0:DP], clip = true), fp32)
      st.global(reduce.sum(x * x, axis = 0), cn[r])
    }
  }
}
