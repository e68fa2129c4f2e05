// bar.uniform: a CTA barrier in the middle of a branch whose condition differs between warps (a
// big cluster's chunks): the warps of small clusters never arrive. The threads that are together
// there are each warp's, so the fix narrows the barrier to the warp.

kernel chunk_sums(
  x: global fp32[B, K, 128] align(16),
  sums: global fp32[B, K, 128] align(16),
  sizes: global i32[B, K],
  ticket: global i32[B, K],
) target(sm_90a) grid(math.cdiv(K, 8), B) block(256) {
  role rows warps(0 .. 8) issue(warp) {
    let b = cta.id(1)
    let k = math.min(cta.id(0) * 8 + self.warp(), K - 1)
    let cnt = ld.global(sizes[b, k])
    // expected-note@+1:8 {{this condition differs between warps}}
    if cnt > 128 {
      atomic.add(ld.global(x[b, k, :]), sums[b, k, :])
      fence.gpu()
      // expected-error@+1:7-20 bar.uniform {{'bar.sync(cta)' is not reached by every thread it counts}}
      bar.sync(cta)
      if elect.one() {
        atomic.add(1, ticket[b, k])
      }
    }
  }
}
