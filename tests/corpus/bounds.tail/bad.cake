// Rows of D columns read DP columns at a time from column 0, with no loop along the row: while
// nothing proves D <= DP, a longer row's columns past DP are never read and the norm is a
// prefix's. The fix-it appends the fact to the kernel's assume (the launcher then refuses D > DP).
const DP = 128

kernel row_norms(
  // expected-note@+1:21 {{'c' declares dimension 1 here}}
  c: global bf16[K, D] align(16),
  cn: global fp32[K],
) target(sm_90a) grid(math.cdiv(K, 8)) block(256) {
  // expected-error@+1:10 bounds.tail {{the facts about D ('D % 8 == 0') do not bound it by DP, but every access to}}
  assume D % 8 == 0
  role rows warps(0 .. 8) issue(warp) {
    let r = cta.id(0) * 8 + self.warp()
    if r < K {
      // expected-note@+1:40 {{the access reaching furthest, elements 0 .. }}
      let x = math.cast(ld.global(c[r, 0:DP], clip = true), fp32)
      st.global(reduce.sum(x * x, axis = 0), cn[r])
    }
  }
}
