// A grid of two parts, the queries' CTAs then the database's (knn_norms, issue #17): the queries'
// tail lies in the middle of the grid, where a search that tries a long grid only at its ends and
// middle does not look. The guard admits r + 2 = Q (a Q of 2 modulo 4).
kernel two_part_norms(
  x: global fp32[Q, 64] align(16),
  y: global fp32[N, 64] align(16),
  out: global fp32[Q],
) target(sm_90a) grid(math.cdiv(Q, 128) + math.cdiv(N, 128)) block(256) {
  role rows warps(0 .. 8) issue(warp) {
    let r0 = (cta.id(0) * 8 + self.warp()) * 16
    for i in 0 .. 4 {
      let r = r0 + 4 * i
      if r < Q {
        let v0 = ld.global(x[r, :])
        let v2 = ld.global(x[r + 2, :], clip = true)
        st.global(reduce.sum(v0 * v0, axis = 0), out[r])
        // expected-error@+1:12 bounds.global {{the guard 'r + 2 <= Q' admits r + 2 = Q}}
        if r + 2 <= Q {
          // expected-note@+1:52 {{the access is here}}
          st.global(reduce.sum(v2 * v2, axis = 0), out[r + 2])
        }
      }
    }
  }
}
