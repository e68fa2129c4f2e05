// role.overlap: warp 4 is claimed by both roles; a warp can dispatch to only one of them.

const D = 128

kernel row_norms(
  x: global bf16[R, D] align(16),
  out: global fp32[R],
) target(sm_90a) grid(math.cdiv(R, 8)) block(256) {
  // expected-note@+1:11 {{role 'lo' has warps 0 .. 5 here}}
  role lo warps(0 .. 5) {
    let r = cta.id(0) * 8 + self.warp()
    if r < R {
      let v = math.cast(ld.global(x[r, :]), fp32)
      st.global(reduce.sum(v * v, axis = 0), out[r])
    }
  }

  // expected-error@+1:11-24 role.overlap {{role 'hi' (warps 4 .. 8) shares warp 4 with role 'lo'}}
  role hi warps(4 .. 8) {
    let r = cta.id(0) * 8 + 4 + self.warp()
    if r < R {
      let v = math.cast(ld.global(x[r, :]), fp32)
      st.global(reduce.sum(v * v, axis = 0), out[r])
    }
  }
}
