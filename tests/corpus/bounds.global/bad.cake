// A `<=` tail guard: the warp of row N reads one row past x. The fix-it makes it `<`.
const D = 128

kernel row_norms(
  x: global bf16[N, D] align(16),
  out: global fp32[N],
) target(sm_80) grid(math.cdiv(N, 8)) block(256) {
  role rows warps(0 .. 8) issue(warp) {
    let n = cta.id(0) * 8 + self.warp()
    // expected-error@+1:8 bounds.global {{the guard 'n <= N' admits n = N, where 'ld.global' of 'x[n, :]' runs o}}
    if n <= N {
      // expected-note@+1:35 {{the access is here}}
      let v = math.cast(ld.global(x[n, :]), fp32)
      // expected-note@+1:46 {{the access is here}}
      st.global(reduce.sum(v * v, axis = 0), out[n])
    }
  }
}
