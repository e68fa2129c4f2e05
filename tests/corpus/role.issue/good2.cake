// role.issue near miss: a per-lane atomic on per-lane addresses, an add combined per warp
// (aggregate = warp), the maximum of a warp-uniform value, and a store of one value to one
// address need no elect: the memory ends the same.

kernel count_rows(
  ids: global i32[B, N],
  counts: global i32[B, K],
  rank: global i32[B, N],
  most: global i32[B],
  seen: global i32[B],
) target(sm_90a) grid(math.cdiv(N, 256), B) block(256) {
  role rows warps(0 .. 8) issue(warp) {
    let b = cta.id(1)
    let n = cta.id(0) * 256 + self.warp() * 32 + self.lane()
    let w = cta.id(0) * 8 + self.warp()
    if n < N {
      let k = ld.global(ids[b, n])
      atomic.add(1, counts[b, k])
      st.global(atomic.add(1, counts[b, k], aggregate = warp), rank[b, n])
    }
    atomic.max(w, most[b])
    st.global(1, seen[b])
  }
}
