// role.warpgroup-aligned: issue(warpgroup) needs whole warpgroups at multiples of 4 warps; warps
// 5 .. 8 are three warps of the second warpgroup. Warp 4 is free, so the fix takes warpgroup 1.

const D = 128

kernel row_norms(
  x: global bf16[R, D] align(16),
  out: global fp32[R],
  // expected-warning@+1:40 kernel.roles-cover {{warp 4 of block(256) runs no role}}
) target(sm_90a) grid(math.cdiv(R, 8)) block(256) {
  role lo warps(0 .. 4) {
    let r = cta.id(0) * 8 + self.warp()
    if r < R {
      let v = math.cast(ld.global(x[r, :]), fp32)
      st.global(reduce.sum(v * v, axis = 0), out[r])
    }
  }

  // expected-error@+2:11-24 role.warpgroup-aligned {{role 'hi' has warps 5 .. 8, which are not whole warpgroups}}
  // expected-note@+1:25 {{issue(warpgroup) runs the body once per warpgroup}}
  role hi warps(5 .. 8) issue(warpgroup) {
    let r = cta.id(0) * 8 + 4 + self.warp() % 4
    if r < R {
      let v = math.cast(ld.global(x[r, :]), fp32)
      st.global(reduce.sum(v * v, axis = 0), out[r])
    }
  }
}
