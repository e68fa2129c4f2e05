// bar.uniform near miss: a warp barrier under a condition that is the same on every lane of a
// warp (each warp reaches it or skips it as a whole), and a CTA barrier outside every branch.

kernel chunk_sums(
  x: global fp32[B, K, 128] align(16),
  sums: global fp32[B, K, 128] align(16),
  sizes: global i32[B, K],
  ticket: global i32[B, K],
  flags: global i32[B],
) target(sm_90a) grid(math.cdiv(K, 8), B) block(256) {
  var seen: shared i32[8]
  role rows warps(0 .. 8) issue(warp) {
    let b = cta.id(1)
    let k = math.min(cta.id(0) * 8 + self.warp(), K - 1)
    let cnt = ld.global(sizes[b, k])
    if cnt > 128 {
      atomic.add(ld.global(x[b, k, :]), sums[b, k, :])
      fence.gpu()
      bar.sync(warp)
      if elect.one() {
        atomic.add(1, ticket[b, k])
      }
    }
    if elect.one() {
      st.shared(cnt, seen[self.warp()])
    }
    bar.sync(cta)
    if self.warp() == 0 {
      let any = ld.shared(seen[self.lane() % 8])
      if elect.one() {
        atomic.max(any, flags[b])
      }
    }
  }
}
