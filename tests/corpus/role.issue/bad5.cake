// role.issue: the count of a row's cluster is added by every lane of the warp: the address
// (one cluster of one row, loaded by the warp) and the value are the same on all 32 lanes, so
// the count grows by 32. The fix puts the add back under elect.one().

kernel count_rows(
  ids: global i32[B, N],
  counts: global i32[B, K],
) target(sm_90a) grid(math.cdiv(N, 8), B) block(256) {
  role rows warps(0 .. 8) issue(warp) {
    let b = cta.id(1)
    let n = cta.id(0) * 8 + self.warp()
    if n < N {
      let k = ld.global(ids[b, n])
      // expected-error@+1:7 role.issue {{'atomic.add' updates one address with one value, but role 'rows' (issue(warp)) runs it on every thread of each warp: it is applied 32 times instead of once}}
      atomic.add(1, counts[b, k])
    }
  }
}
