// role.warpgroup-aligned near miss: warps 4 .. 8 are exactly warpgroup 1.

const D = 128

kernel row_norms(
  x: global bf16[R, D] align(16),
  out: global fp32[R],
) target(sm_90a) grid(math.cdiv(R, 8)) block(256) {
  role lo warps(0 .. 4) {
    let r = cta.id(0) * 8 + self.warp()
    if r < R {
      let v = math.cast(ld.global(x[r, :]), fp32)
      st.global(reduce.sum(v * v, axis = 0), out[r])
    }
  }

  role hi warps(4 .. 8) issue(warpgroup) {
    let r = cta.id(0) * 8 + 4 + self.warp() % 4
    if r < R {
      let v = math.cast(ld.global(x[r, :]), fp32)
      st.global(reduce.sum(v * v, axis = 0), out[r])
    }
  }
}
