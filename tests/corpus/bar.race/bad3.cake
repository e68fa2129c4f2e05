// bar.race: every lane adds its part of the row and fences, then the elected lane takes a ticket
// that tells the last chunk to read the sums; the fence orders only the elected lane's own adds,
// so without a warp barrier between the ticket may come before the other lanes' adds.

kernel chunk_sums(
  x: global fp32[B, K, 128] align(16),
  sums: global fp32[B, K, 128] align(16),
  ticket: global i32[B, K],
  done: global i32[B, K],
) target(sm_90a) grid(math.cdiv(K, 8), B) block(256) {
  role rows warps(0 .. 8) issue(warp) {
    let b = cta.id(1)
    let k = math.min(cta.id(0) * 8 + self.warp(), K - 1)
    atomic.add(ld.global(x[b, k, :]), sums[b, k, :])
    // expected-error@+1:5-16 bar.race {{the elected thread signals with 'atomic.add' after a fence.gpu}}
    fence.gpu()
    var t: i32 = 0
    if elect.one() {
      // expected-note@+1:11 {{the elected thread's signal}}
      t = atomic.add(1, ticket[b, k])
    }
    if elect.one() {
      st.global(t, done[b, k])
    }
  }
}
