// Rows in groups of four: the store of the third row of a group is guarded with `<=`, which admits
// r + 2 = Q. Only a Q of 2 modulo 4 reaches it (r is a multiple of 4), so the size samples must
// include such a Q (Bounds.cpp's thorough search; knn_norms had this shape, issue #17).
kernel row_norms(
  x: global fp32[Q, 64] align(16),
  out: global fp32[Q],
) target(sm_90a) grid(math.cdiv(Q, 32)) block(256) {
  role rows warps(0 .. 8) issue(warp) {
    let r = (cta.id(0) * 8 + self.warp()) * 4
    if r < Q {
      let v0 = ld.global(x[r, :])
      let v2 = ld.global(x[r + 2, :], clip = true)
      st.global(reduce.sum(v0 * v0, axis = 0), out[r])
      // expected-error@+1:10 bounds.global {{the guard 'r + 2 <= Q' admits r + 2 = Q}}
      if r + 2 <= Q {
        // expected-note@+1:50 {{the access is here}}
        st.global(reduce.sum(v2 * v2, axis = 0), out[r + 2])
      }
    }
  }
}
