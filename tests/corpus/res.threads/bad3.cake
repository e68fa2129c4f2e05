// res.threads: block(256) launches 8 warps but the only role has 4; warps 4 .. 8 would idle.

const D = 128

kernel row_norms(
  x: global bf16[R, D] align(16),
  out: global fp32[R],
  // expected-error@+1:46 res.threads {{the warps past 4 would run no role}}
) target(sm_90a) grid(math.cdiv(R, 4)) block(256) {
  // expected-note@+1:11 {{the last warp of role 'lo' is warp 3}}
  role lo warps(0 .. 4) {
    let r = cta.id(0) * 4 + self.warp()
    if r < R {
      let v = math.cast(ld.global(x[r, :]), fp32)
      st.global(reduce.sum(v * v, axis = 0), out[r])
    }
  }
}
