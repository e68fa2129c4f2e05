// Near misses: a dense map, and four strided maps whose union is dense (rows 256 apart per lane).
kernel zero(
  counts: global i32[B, K],
) target(sm_90a) grid(math.cdiv(K, 256), B) block(256) {
  role rows warps(0 .. 8) issue(warp) {
    let b = cta.id(1)
    let k = cta.id(0) * 256 + self.warp() * 32 + self.lane()
    if k < K {
      st.global(0, counts[b, k])
    }
  }
}

kernel ranks(
  rank: global i32[B, N],
) target(sm_90a) grid(math.cdiv(N, 1024), B) block(256) {
  role rows warps(0 .. 8) issue(warp) {
    let b = cta.id(1)
    let n0 = cta.id(0) * 1024 + self.warp() * 32 + self.lane()
    for i in 0 .. 4 unroll {
      if n0 + i * 256 < N {
        st.global(i, rank[b, n0 + i * 256])
      }
    }
  }
}
